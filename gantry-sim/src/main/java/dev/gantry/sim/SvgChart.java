package dev.gantry.sim;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A line chart as a self-contained SVG file: one polyline per series, axes with a few ticks, a legend. Written by
 * hand because it is all the simulator needs; a browser opens it.
 */
final class SvgChart {
    private static final int WIDTH = 900;
    private static final int HEIGHT = 420;
    private static final int LEFT = 70;
    private static final int RIGHT = 170;
    private static final int TOP = 40;
    private static final int BOTTOM = 50;
    private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
        "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

    private SvgChart() {
    }

    /** The chart of {@code series} (name → points of hours, value), in the map's order. */
    static String render(String title, String yLabel, Map<String, List<double[]>> series) {
        double xMax = 0;
        double yMax = 0;
        for (List<double[]> points : series.values()) {
            for (double[] p : points) {
                xMax = Math.max(xMax, p[0]);
                yMax = Math.max(yMax, p[1]);
            }
        }
        xMax = xMax == 0 ? 1 : xMax;
        yMax = niceCeiling(yMax);
        double plotW = WIDTH - LEFT - RIGHT;
        double plotH = HEIGHT - TOP - BOTTOM;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, HEIGHT));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, HEIGHT));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"22\" font-size=\"14\">%s</text>%n", LEFT,
                escape(title)));
        for (int i = 0; i <= 4; i++) {
            double y = TOP + plotH - plotH * i / 4;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\""
                    + " stroke=\"#ddd\"/>%n", LEFT, y, LEFT + plotW, y));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
                    LEFT - 6, y + 4, number(yMax * i / 4)));
        }
        for (int i = 0; i <= 4; i++) {
            double x = LEFT + plotW * i / 4;
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%sh</text>%n",
                    x, TOP + (int) plotH + 18, number(xMax * i / 4)));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">virtual time"
                + "</text>%n", LEFT + plotW / 2, HEIGHT - 10));
        svg.append(String.format(Locale.ROOT, "<text x=\"16\" y=\"%.1f\" transform=\"rotate(-90 16 %.1f)\""
                + " text-anchor=\"middle\">%s</text>%n", TOP + plotH / 2, TOP + plotH / 2, escape(yLabel)));
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%.1f\" fill=\"none\""
                + " stroke=\"#444\"/>%n", LEFT, TOP, plotW, plotH));
        int n = 0;
        for (var e : series.entrySet()) {
            String colour = COLOURS[n % COLOURS.length];
            StringBuilder points = new StringBuilder();
            for (double[] p : e.getValue()) {
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", LEFT + plotW * p[0] / xMax,
                        TOP + plotH - plotH * p[1] / yMax));
            }
            svg.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\""
                    + " points=\"%s\"/>%n", colour, points.toString().trim()));
            double ly = TOP + 10 + 18 * n;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\""
                    + " stroke=\"%s\" stroke-width=\"3\"/>%n", LEFT + plotW + 12, ly, LEFT + plotW + 32, ly, colour));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\">%s</text>%n", LEFT + plotW + 38,
                    ly + 4, escape(e.getKey())));
            n++;
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    /** 1, 2 or 5 times a power of ten, at least {@code v}, so axis ticks are round numbers. */
    static double niceCeiling(double v) {
        if (v <= 0) {
            return 1;
        }
        double power = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * power >= v) {
                return m * power;
            }
        }
        return 10 * power;
    }

    private static String number(double v) {
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
