package dev.gantry.server.storage;

import java.io.IOException;

/**
 * The storage underneath cannot take a request now (the bucket's endpoint does not answer, or answers with a server
 * error such as S3's 503 SlowDown): worth retrying later, unlike a refusal. The HTTP API answers it with 503 and
 * {@code Retry-After}, which agents retry.
 */
public final class StorageUnavailableException extends IOException {
    public StorageUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
