package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.InboxTransaction;
import dev.pginbox.inbox.Outcome;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.List;
import org.springframework.util.ReflectionUtils;

/**
 * One {@code @InboxListener} method: which argument goes where, and what its return value means.
 * Checked once, when the context starts, so that a wrong signature fails the start-up, not the
 * first message.
 */
final class ListenerMethod {

  private enum Slot {
    MESSAGE,
    BATCH,
    TRANSACTION,
    PAYLOAD
  }

  private final Object bean;
  private final Method method;
  private final String inbox;
  private final Slot[] slots;
  private final Type payloadType;
  private final boolean batch;

  ListenerMethod(Object bean, Method method, String inbox) {
    this.bean = bean;
    this.method = method;
    this.inbox = inbox;
    Type[] types = method.getGenericParameterTypes();
    this.slots = new Slot[types.length];
    Type payload = null;
    boolean sawBatch = false;
    for (int i = 0; i < types.length; i++) {
      Type t = types[i];
      if (t == InboxMessage.class) {
        slots[i] = Slot.MESSAGE;
      } else if (t == InboxTransaction.class) {
        slots[i] = Slot.TRANSACTION;
      } else if (isListOfMessages(t)) {
        slots[i] = Slot.BATCH;
        sawBatch = true;
      } else if (payload == null) {
        slots[i] = Slot.PAYLOAD;
        payload = t;
      } else {
        throw invalid("has more than one payload parameter");
      }
    }
    this.payloadType = payload;
    this.batch = sawBatch;
    Class<?> returns = method.getReturnType();
    if (batch) {
      if (payload != null || has(Slot.MESSAGE)) {
        throw invalid("takes a List<InboxMessage>, so it may take no single message or payload");
      }
      if (returns != void.class && returns != BatchResult.class) {
        throw invalid("handles batches, so it returns void or BatchResult");
      }
    } else if (returns != void.class && returns != Outcome.class) {
      throw invalid("returns void or Outcome");
    }
    ReflectionUtils.makeAccessible(method);
  }

  private static boolean isListOfMessages(Type t) {
    return t instanceof ParameterizedType p
        && p.getRawType() == List.class
        && p.getActualTypeArguments()[0] == InboxMessage.class;
  }

  private boolean has(Slot slot) {
    for (Slot s : slots) {
      if (s == slot) {
        return true;
      }
    }
    return false;
  }

  private InboxException invalid(String why) {
    return new InboxException("@InboxListener method " + describe() + " " + why, inbox);
  }

  String describe() {
    return method.getDeclaringClass().getName() + "." + method.getName();
  }

  String inbox() {
    return inbox;
  }

  boolean batch() {
    return batch;
  }

  /** The payload type, or null when the method takes no payload. */
  Type payloadType() {
    return payloadType;
  }

  Object invoke(
      InboxMessage message, List<InboxMessage> messages, Object payload, InboxTransaction tx)
      throws Exception {
    Object[] args = new Object[slots.length];
    for (int i = 0; i < slots.length; i++) {
      args[i] =
          switch (slots[i]) {
            case MESSAGE -> message;
            case BATCH -> messages;
            case TRANSACTION -> tx;
            case PAYLOAD -> payload;
          };
    }
    try {
      return method.invoke(bean, args);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof Exception ex) {
        throw ex;
      }
      throw (Error) cause;
    }
  }
}
