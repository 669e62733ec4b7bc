package dev.gantry.db;

import java.util.Objects;

/**
 * A database setting has a value Gantry will not run with. The message reads like
 * {@code GANTRY_DATABASE_POOL_SIZE must be an integer from 1 to 200, got 'x'}; {@link #setting()} says which setting,
 * for code that needs to tell them apart. Thrown at start, before anything is opened, and never replaced by a default.
 */
public final class InvalidSettingException extends DatabaseException {
    private final DatabaseSetting setting;

    InvalidSettingException(DatabaseSetting setting, String problem) {
        super(setting.environmentVariable() + " " + problem);
        this.setting = Objects.requireNonNull(setting, "setting");
    }

    /** The setting whose value was rejected. */
    public DatabaseSetting setting() {
        return setting;
    }
}
