package dev.pginbox.inbox.spring;

import java.lang.reflect.Type;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/** Jackson 3 ({@code tools.jackson}), what Spring Boot 4 configures. */
final class Jackson3PayloadCodec implements PayloadCodec {

  private final JsonMapper mapper;

  Jackson3PayloadCodec(JsonMapper mapper) {
    this.mapper = Objects.requireNonNull(mapper, "mapper");
  }

  @Override
  public String write(Object payload) {
    return mapper.writeValueAsString(payload);
  }

  @Override
  public Object read(String json, Type type) {
    try {
      return mapper.readValue(json, mapper.getTypeFactory().constructType(type));
    } catch (JacksonException e) {
      throw new IllegalArgumentException(e.getOriginalMessage(), e);
    }
  }
}
