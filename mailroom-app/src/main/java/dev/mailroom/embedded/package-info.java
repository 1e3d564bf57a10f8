/** Embedded mode: a local PostgreSQL and a generated signing key when no database is configured. */
package dev.mailroom.embedded;
