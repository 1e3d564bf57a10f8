package dev.mailroom.collector;

/**
 * A token of a claimed batch joined with its account.
 *
 * @param ineligible why the original rules would not send it, or null when they would
 */
record TokenRow(
    long id,
    String action,
    String email,
    String login,
    byte[] secret,
    String code,
    String ineligible) {}
