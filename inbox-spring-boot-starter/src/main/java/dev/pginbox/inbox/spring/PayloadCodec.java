package dev.pginbox.inbox.spring;

import java.lang.reflect.Type;

/** Turns payloads into JSON text and back, with the application's Jackson mapper. */
interface PayloadCodec {

  String write(Object payload);

  /**
   * Reads {@code json} as {@code type}.
   *
   * @throws IllegalArgumentException when the JSON does not bind to the type
   */
  Object read(String json, Type type);
}
