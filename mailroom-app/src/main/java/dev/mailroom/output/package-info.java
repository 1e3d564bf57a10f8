/**
 * What leaves the collector: signed tokens ({@code TokenSigner}) in the original sender's line
 * format.
 */
package dev.mailroom.output;
