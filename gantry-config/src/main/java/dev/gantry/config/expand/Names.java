package dev.gantry.config.expand;

import java.util.Collection;

/** "Did you mean" suggestions for misspelled keys and names. */
final class Names {
    /** Names longer than this get no suggestion. */
    static final int MAX_LENGTH = 100;
    private Names() {
    }

    /** A hint naming the closest of {@code known} to {@code wrong}, or null when none is close enough. */
    static String didYouMean(String wrong, Collection<String> known) {
        if (wrong.length() > MAX_LENGTH) {
            return null; // nobody mistypes a name this long, and the distance table grows with its square
        }
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : known) {
            if (candidate.length() > MAX_LENGTH) {
                continue;
            }
            int d = distance(wrong.toLowerCase(java.util.Locale.ROOT), candidate.toLowerCase(java.util.Locale.ROOT));
            if (d < bestDistance || (d == bestDistance && best != null && candidate.compareTo(best) < 0)) {
                best = candidate;
                bestDistance = d;
            }
        }
        if (best == null) {
            return null;
        }
        int allowed = Math.max(1, Math.min(3, Math.max(wrong.length(), best.length()) / 3));
        return bestDistance <= allowed ? "did you mean '" + best + "'?" : null;
    }

    /** Optimal string alignment distance: Levenshtein plus transposition of neighbours ("biuld" → "build" is 1). */
    static int distance(String a, String b) {
        if (Math.abs(a.length() - b.length()) > 3) {
            return Math.abs(a.length() - b.length());
        }
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                int v = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    v = Math.min(v, d[i - 2][j - 2] + 1);
                }
                d[i][j] = v;
            }
        }
        return d[a.length()][b.length()];
    }

    /** {@code 'a', 'b', 'c'} for messages; at most ten names, then "…". */
    static String list(Collection<String> names) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        for (String n : names) {
            if (i == 10) {
                out.append(", …");
                break;
            }
            if (i++ > 0) {
                out.append(", ");
            }
            out.append('\'').append(n).append('\'');
        }
        return out.length() == 0 ? "none" : out.toString();
    }
}
