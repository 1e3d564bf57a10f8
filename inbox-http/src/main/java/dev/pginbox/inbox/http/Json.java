package dev.pginbox.inbox.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/** One JSON mapper: ISO-8601 times, records as objects. */
final class Json {

  static final String CONTENT_TYPE = "application/json; charset=utf-8";

  static final ObjectMapper MAPPER =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  private Json() {}

  static String write(Object value) {
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
  }

  static com.fasterxml.jackson.databind.JsonNode readTree(String json) {
    try {
      return MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("unexpected JSON from the SQL API", e);
    }
  }

  /** JSON text pretty-printed; text that is not JSON as it is. */
  static String pretty(String json) {
    if (json == null) {
      return "";
    }
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(MAPPER.readTree(json));
    } catch (JsonProcessingException e) {
      return json;
    }
  }
}
