/** Installs the inbox SQL API and the mailroom schema from the SQL files shipped in the jar. */
package dev.mailroom.schema;
