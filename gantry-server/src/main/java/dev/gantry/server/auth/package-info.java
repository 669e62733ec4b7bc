/**
 * API tokens: the admin token that every {@code /api/v2} request must carry, and the agent token that build agents
 * present on {@code /api/agent/v1}. {@link dev.gantry.server.auth.ServerTokens} makes sure both exist at start:
 * generated on the first start, stored in the database only as SHA-256 hashes, and handed to the operator as files under
 * {@code $GANTRY_HOME} (mode 0600, written atomically). {@link dev.gantry.server.auth.AdminAuthentication} checks
 * {@code /api/v2} requests and {@link dev.gantry.server.auth.AgentAuthentication} those of the agent protocol, each
 * refusing the other kind of token, comparing hashes in constant time.
 */
package dev.gantry.server.auth;
