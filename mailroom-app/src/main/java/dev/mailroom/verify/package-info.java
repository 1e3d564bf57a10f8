/**
 * Verification of the tokens in emails: {@code TokenVerifier} checks a token's signature against
 * the current and previous keys ({@code SigningKeys}) and consumes its row in one transaction.
 */
package dev.mailroom.verify;
