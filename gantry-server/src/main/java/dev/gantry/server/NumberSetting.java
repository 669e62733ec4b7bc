package dev.gantry.server;

import java.util.Map;

/** A number read from an environment variable, checked against its range. Stateless. */
public final class NumberSetting {
    private NumberSetting() {
    }

    /**
     * The number in {@code variable}, or {@code fallback} when it is unset.
     *
     * @param rule what a value must be, as the error states it, e.g. "must be a number from 0.1 to 10000"
     * @throws InvalidServerSettingException naming the variable when it is set but empty, not a number or out of
     *                                       {@code [min, max]}
     */
    public static double read(Map<String, String> environment, String variable, double fallback, double min,
                              double max, String rule) {
        String text = environment.get(variable);
        if (text == null) {
            return fallback;
        }
        try {
            double value = Double.parseDouble(text.strip());
            if (value >= min && value <= max) {
                return value;
            }
        } catch (NumberFormatException notANumber) {
            // reported below, like a number out of range
        }
        throw new InvalidServerSettingException(variable + " " + rule + ", got '" + text + "'");
    }
}
