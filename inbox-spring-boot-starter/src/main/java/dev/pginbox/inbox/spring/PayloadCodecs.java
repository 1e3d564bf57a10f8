package dev.pginbox.inbox.spring;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Picks the application's JSON mapper: Spring Boot 4's Jackson 3 {@code JsonMapper} bean, else a
 * Jackson 2 {@code ObjectMapper} bean, else a default mapper.
 */
final class PayloadCodecs {

  private static final boolean JACKSON3 =
      ClassUtils.isPresent(
          "tools.jackson.databind.json.JsonMapper", PayloadCodecs.class.getClassLoader());

  private PayloadCodecs() {}

  static PayloadCodec fromContext(BeanFactory beans) {
    if (JACKSON3) {
      PayloadCodec codec = Jackson3.fromContext(beans);
      if (codec != null) {
        return codec;
      }
    }
    ObjectMapper mapper = beans.getBeanProvider(ObjectMapper.class).getIfUnique();
    if (mapper != null) {
      return new Jackson2PayloadCodec(mapper);
    }
    return JACKSON3 ? Jackson3.defaults() : new Jackson2PayloadCodec(new ObjectMapper());
  }

  /** Touched only when Jackson 3 is on the classpath. */
  private static final class Jackson3 {
    static PayloadCodec fromContext(BeanFactory beans) {
      tools.jackson.databind.json.JsonMapper mapper =
          beans.getBeanProvider(tools.jackson.databind.json.JsonMapper.class).getIfUnique();
      return mapper == null ? null : new Jackson3PayloadCodec(mapper);
    }

    static PayloadCodec defaults() {
      return new Jackson3PayloadCodec(tools.jackson.databind.json.JsonMapper.builder().build());
    }
  }
}
