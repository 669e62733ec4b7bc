/**
 * The {@code gantry} command line: one small picocli class per subcommand that parses flags and calls a module's
 * API. Exit codes follow picocli: 0 success, 1 the command ran and failed (an invalid config, an unreadable file),
 * 2 a usage error (unknown flag, bad value, missing argument). Results go to standard output, so they can be piped;
 * warnings about a successful result go to standard error.
 */
package dev.gantry.cli;
