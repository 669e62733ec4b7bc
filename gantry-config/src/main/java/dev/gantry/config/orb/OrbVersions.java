package dev.gantry.config.orb;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How a version in an orb reference picks one of an orb's versions, as CircleCI's registry does: an exact version
 * ({@code 5.2.1}, or a dev version {@code dev:LABEL}) picks itself; a prefix ({@code 5}, {@code 5.2}) the highest
 * release under it; {@code volatile} the highest release. Pure.
 */
public final class OrbVersions {
    private static final Pattern RELEASE = Pattern.compile("\\d{1,9}\\.\\d{1,9}\\.\\d{1,9}");
    private static final Pattern PREFIX = Pattern.compile("\\d{1,9}(\\.\\d{1,9})?");
    private static final Pattern DEV = Pattern.compile("dev:[A-Za-z0-9_.-]{1,100}");

    /** Numeric parts compare as numbers, so 1.10.0 sorts after 1.9.0; anything else compares as text. */
    public static final Comparator<String> ORDER = (a, b) -> {
        String[] pa = a.split("\\.");
        String[] pb = b.split("\\.");
        for (int i = 0; i < Math.min(pa.length, pb.length); i++) {
            int c = comparePart(pa[i], pb[i]);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(pa.length, pb.length);
    };

    private OrbVersions() {
    }

    /** True for a published release, {@code X.Y.Z}. */
    public static boolean isRelease(String version) {
        return RELEASE.matcher(version).matches();
    }

    /** True for a dev version, {@code dev:LABEL}: mutable, and never picked by a prefix or {@code volatile}. */
    public static boolean isDev(String version) {
        return DEV.matcher(version).matches();
    }

    /** True when {@code wanted} picks exactly one version by name, not the highest of several. */
    public static boolean isExact(String wanted) {
        return isRelease(wanted) || isDev(wanted);
    }

    /** True for anything a reference may say after its {@code @}. */
    public static boolean isReference(String wanted) {
        return isExact(wanted) || wanted.equals("volatile") || PREFIX.matcher(wanted).matches();
    }

    /** The version of {@code versions} that {@code wanted} picks, if any. */
    public static Optional<String> choose(List<String> versions, String wanted) {
        if (versions.contains(wanted)) {
            return Optional.of(wanted);
        }
        if (isExact(wanted)) {
            return Optional.empty();
        }
        return versions.stream()
                .filter(OrbVersions::isRelease)
                .filter(v -> wanted.equals("volatile") || v.startsWith(wanted + "."))
                .max(ORDER);
    }

    private static int comparePart(String a, String b) {
        boolean na = a.matches("\\d{1,9}");
        boolean nb = b.matches("\\d{1,9}");
        if (na && nb) {
            return Integer.compare(Integer.parseInt(a), Integer.parseInt(b));
        }
        return na != nb ? (na ? 1 : -1) : a.compareTo(b);
    }
}
