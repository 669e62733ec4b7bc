package dev.gantry.agent.protocol;

/** The cache the server matched for a list of keys: its full key and archive size in bytes. */
public record CacheHit(String key, long size) {
}
