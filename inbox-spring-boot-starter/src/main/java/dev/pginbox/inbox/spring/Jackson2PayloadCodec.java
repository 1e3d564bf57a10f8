package dev.pginbox.inbox.spring;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.reflect.Type;
import java.util.Objects;

/** Jackson 2 ({@code com.fasterxml.jackson}), for applications that configure an ObjectMapper. */
final class Jackson2PayloadCodec implements PayloadCodec {

  private final ObjectMapper mapper;

  Jackson2PayloadCodec(ObjectMapper mapper) {
    this.mapper = Objects.requireNonNull(mapper, "mapper");
  }

  @Override
  public String write(Object payload) {
    try {
      return mapper.writeValueAsString(payload);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "cannot write a " + payload.getClass().getName() + " as JSON: " + e.getOriginalMessage(),
          e);
    }
  }

  @Override
  public Object read(String json, Type type) {
    try {
      return mapper.readValue(json, mapper.getTypeFactory().constructType(type));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(e.getOriginalMessage(), e);
    }
  }
}
