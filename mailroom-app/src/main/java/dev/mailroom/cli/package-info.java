/** The command line: the collector (default command) and the operator subcommands. */
package dev.mailroom.cli;
