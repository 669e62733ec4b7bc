package dev.gantry.server.ui;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * A small line chart laid out for inline SVG (the template {@code chart.jte} draws it): points in order along the x
 * axis, evenly spaced, one line per series; a missing value (null, e.g. a day without runs) breaks the line rather
 * than dropping it to zero, and a point with no neighbour shows as a dot. The y axis starts at zero and ends at a
 * round number above the largest value (or at a fixed top, such as 100 %). Coordinates are in SVG user units. Pure.
 *
 * @param title   what the chart shows, its SVG {@code <title>}
 * @param summary the figures in words, for the {@code aria-label} of a chart drawn as an image
 */
public record SvgChart(String title, String summary, int width, int height, List<Line> lines, List<Tick> yTicks,
                       List<Tick> xTicks) {
    static final int WIDTH = 560;
    static final int HEIGHT = 200;
    static final int LEFT = 56;
    static final int RIGHT = 12;
    static final int TOP = 12;
    static final int BOTTOM = 28;
    static final int Y_TICKS = 4;
    static final int X_LABELS = 5;

    /** One series' values, in x order; null where there is none. */
    public record Series(String name, String cssClass, List<Double> values) {
    }

    /**
     * A series as drawn: {@code path} joins neighbouring points (empty when no two are neighbours), {@code dots}
     * marks every point.
     */
    public record Line(String name, String cssClass, String path, List<Dot> dots) {
    }

    public record Dot(double x, double y) {
    }

    /** An axis label at {@code at} (y for the y axis, x for the x axis). */
    public record Tick(double at, String label) {
    }

    /** The plot's left, right, top and bottom edges, where the axes are drawn. */
    public int plotLeft() {
        return LEFT;
    }

    public int plotRight() {
        return width - RIGHT;
    }

    public int plotTop() {
        return TOP;
    }

    public int plotBottom() {
        return height - BOTTOM;
    }

    /** How an x label lines up with its point: the first and last stay inside the chart. */
    public String anchor(Tick tick) {
        return tick.at() <= plotLeft() ? "start" : tick.at() >= plotRight() ? "end" : "middle";
    }

    /** Whether any series has a value: without one the chart says so instead of drawing empty axes. */
    public boolean empty() {
        return lines.stream().allMatch(l -> l.dots().isEmpty());
    }

    /**
     * Lays out {@code series} over the x labels {@code xLabels} (one per point).
     *
     * @param fixedTop the y axis' top (e.g. 100 for a percentage), or null to fit the values
     * @param format   writes a y value as its axis label and in the summary
     */
    public static SvgChart of(String title, List<String> xLabels, List<Series> series, Double fixedTop,
                              DoubleFunction<String> format) {
        for (Series s : series) {
            if (s.values().size() != xLabels.size()) {
                throw new IllegalArgumentException("series " + s.name() + " has " + s.values().size()
                        + " values for " + xLabels.size() + " x labels");
            }
        }
        double largest = series.stream().flatMap(s -> s.values().stream()).filter(v -> v != null)
                .mapToDouble(Double::doubleValue).max().orElse(0);
        double top = fixedTop != null ? fixedTop : niceCeiling(largest);
        int plotWidth = WIDTH - LEFT - RIGHT;
        int plotHeight = HEIGHT - TOP - BOTTOM;
        int n = xLabels.size();
        DoubleFunction<Double> xOf = i -> n == 1 ? LEFT + plotWidth / 2.0 : LEFT + plotWidth * i / (n - 1);
        DoubleFunction<Double> yOf = v -> TOP + plotHeight * (1 - Math.min(v, top) / top);

        List<Line> lines = new ArrayList<>();
        for (Series s : series) {
            StringBuilder path = new StringBuilder();
            List<Dot> dots = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Double v = s.values().get(i);
                if (v == null) {
                    continue;
                }
                Dot dot = new Dot(round(xOf.apply(i)), round(yOf.apply(Math.max(0, v))));
                dots.add(dot);
                boolean joined = i > 0 && s.values().get(i - 1) != null;
                boolean joinsNext = i + 1 < n && s.values().get(i + 1) != null;
                if (joined) {
                    path.append(" L").append(number(dot.x())).append(' ').append(number(dot.y()));
                } else if (joinsNext) {
                    path.append(path.isEmpty() ? "" : " ").append('M').append(number(dot.x())).append(' ')
                            .append(number(dot.y()));
                }
            }
            lines.add(new Line(s.name(), s.cssClass(), path.toString().strip(), dots));
        }
        List<Tick> yTicks = new ArrayList<>();
        for (int k = 0; k <= Y_TICKS; k++) {
            double v = top * k / Y_TICKS;
            yTicks.add(new Tick(round(yOf.apply(v)), format.apply(v)));
        }
        List<Tick> xTicks = new ArrayList<>();
        int labels = Math.min(n, X_LABELS);
        for (int k = 0; k < labels; k++) {
            int i = labels == 1 ? 0 : Math.round((float) k * (n - 1) / (labels - 1));
            xTicks.add(new Tick(round(xOf.apply(i)), xLabels.get(i)));
        }
        return new SvgChart(title, summary(title, xLabels, series, format), WIDTH, HEIGHT, List.copyOf(lines),
                List.copyOf(yTicks), List.copyOf(xTicks));
    }

    /** The smallest of 1, 2, 2.5, 5 times a power of ten that is at least {@code v}; 1 for nothing to show. */
    static double niceCeiling(double v) {
        if (!(v > 0)) {
            return 1;
        }
        double power = Math.pow(10, Math.floor(Math.log10(v)));
        for (double step : new double[] {1, 2, 2.5, 5, 10}) {
            if (step * power >= v * (1 - 1e-9)) {
                return step * power;
            }
        }
        return 10 * power;
    }

    /** "Success rate per day, 2026-01-01 to 2026-01-30: 21 of 30 with a value, from 50 % to 100 %, last 75 %." */
    private static String summary(String title, List<String> xLabels, List<Series> series,
                                  DoubleFunction<String> format) {
        StringBuilder s = new StringBuilder(title);
        if (!xLabels.isEmpty()) {
            s.append(", ").append(xLabels.getFirst());
            if (xLabels.size() > 1) {
                s.append(" to ").append(xLabels.getLast());
            }
        }
        s.append(':');
        for (Series one : series) {
            List<Double> present = one.values().stream().filter(v -> v != null).toList();
            s.append(series.size() > 1 ? " " + one.name() + ":" : "");
            if (present.isEmpty()) {
                s.append(" no data.");
                continue;
            }
            double min = present.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
            double max = present.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
            s.append(' ').append(present.size()).append(" of ").append(xLabels.size()).append(" with a value, ");
            s.append(min == max ? "all " + format.apply(min) : "from " + format.apply(min) + " to "
                    + format.apply(max)).append(", last ").append(format.apply(present.getLast())).append('.');
        }
        return s.toString();
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    /** {@code 12}, {@code 12.5}: as short as SVG needs, always with a dot. */
    public static String number(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }
}
