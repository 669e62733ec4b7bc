/**
 * What every route of the HTTP API shares: reading a JSON request body within its limits ({@link
 * dev.gantry.server.http.JsonBody}, {@link dev.gantry.server.http.JsonFields}), the one mapper from failures to JSON
 * errors ({@link dev.gantry.server.http.ErrorResponses}), page tokens and the JSON conventions (snake_case names,
 * ISO-8601 UTC times).
 *
 * <p>What belongs here: plumbing with no knowledge of projects, pipelines or tokens. Feature packages depend on it,
 * never the other way round.
 */
package dev.gantry.server.http;
