package dev.gantry.server.usage;

import java.util.List;

/**
 * The thresholds of a monthly budget that record an alert: {@value #WARNING} % and {@value #EXCEEDED} % of it. Pure.
 */
final class BudgetThresholds {
    static final int WARNING = 80;
    static final int EXCEEDED = 100;
    static final List<Integer> PERCENTS = List.of(WARNING, EXCEEDED);

    private BudgetThresholds() {
    }

    /** The thresholds {@code credits} has reached under {@code budget}. */
    static List<Integer> reached(long budget, long credits) {
        return PERCENTS.stream().filter(p -> credits * 100 >= budget * p).toList();
    }

    /** The thresholds a month's total crossed moving from {@code before} to {@code after} credits. */
    static List<Integer> crossed(long budget, long before, long after) {
        List<Integer> already = reached(budget, before);
        return reached(budget, after).stream().filter(p -> !already.contains(p)).toList();
    }
}
