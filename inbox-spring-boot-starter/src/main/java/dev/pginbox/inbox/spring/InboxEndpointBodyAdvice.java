package dev.pginbox.inbox.spring;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Type;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.core.MethodParameter;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdviceAdapter;

/**
 * Lets the {@code inbox} endpoint's write operations take a JSON array, as in {@code {"eventIds":
 * ["e1", "e2"]}}.
 *
 * <p>Spring MVC reads an Actuator write operation's body as {@code Map<String, String>}, so an
 * array fails to bind and the request is refused with a bare 400 before the operation runs. For
 * requests to the {@code inbox} endpoint only (the handler mapping matched {@code <path of the
 * endpoint>/{name}}), this passes each array or object of the body on as its JSON text, which the
 * operation reads back ({@link ReplaySelection}). Everything else (exposure, access, security,
 * {@code inbox.actuator.write-operations}) stays with Actuator: the advice runs only once Actuator
 * chose the operation.
 */
@ControllerAdvice
final class InboxEndpointBodyAdvice extends RequestBodyAdviceAdapter {

  private static final EndpointId INBOX = EndpointId.of("inbox");

  private final ObjectProvider<PathMappedEndpoints> endpoints;
  private final PayloadCodec codec;

  InboxEndpointBodyAdvice(ObjectProvider<PathMappedEndpoints> endpoints, PayloadCodec codec) {
    this.endpoints = endpoints;
    this.codec = codec;
  }

  @Override
  public boolean supports(
      MethodParameter parameter,
      Type targetType,
      Class<? extends HttpMessageConverter<?>> converterType) {
    return Map.class.isAssignableFrom(parameter.getParameterType()) && isInboxEndpointRequest();
  }

  private boolean isInboxEndpointRequest() {
    RequestAttributes request = RequestContextHolder.getRequestAttributes();
    if (request == null) {
      return false;
    }
    Object pattern =
        request.getAttribute(
            HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE, RequestAttributes.SCOPE_REQUEST);
    PathMappedEndpoints paths = endpoints.getIfAvailable();
    String path = paths == null ? null : paths.getPath(INBOX);
    return pattern != null && path != null && (path + "/{name}").equals(pattern.toString());
  }

  @Override
  public HttpInputMessage beforeBodyRead(
      HttpInputMessage input,
      MethodParameter parameter,
      Type targetType,
      Class<? extends HttpMessageConverter<?>> converterType)
      throws IOException {
    byte[] body = input.getBody().readAllBytes();
    Object parsed;
    try {
      parsed = codec.read(new String(body, UTF_8), Map.class);
    } catch (IllegalArgumentException e) {
      return message(input.getHeaders(), body); // not JSON: Spring MVC refuses it as before
    }
    if (!(parsed instanceof Map<?, ?> fields)) {
      return message(input.getHeaders(), body);
    }
    Map<String, Object> asText = new LinkedHashMap<>();
    fields.forEach(
        (key, value) ->
            asText.put(
                String.valueOf(key),
                value instanceof List || value instanceof Map ? codec.write(value) : value));
    return message(input.getHeaders(), codec.write(asText).getBytes(UTF_8));
  }

  private static HttpInputMessage message(HttpHeaders headers, byte[] body) {
    HttpHeaders copy = HttpHeaders.copyOf(headers);
    copy.setContentLength(body.length);
    return new HttpInputMessage() {
      @Override
      public InputStream getBody() {
        return new ByteArrayInputStream(body);
      }

      @Override
      public HttpHeaders getHeaders() {
        return copy;
      }
    };
  }
}
