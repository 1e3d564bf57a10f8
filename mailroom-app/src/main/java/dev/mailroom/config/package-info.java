/**
 * Configuration from the MAILROOM_* environment: database URL parsing (libpq and URI forms),
 * defaults and validation.
 */
package dev.mailroom.config;
