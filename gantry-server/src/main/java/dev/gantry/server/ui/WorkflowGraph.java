package dev.gantry.server.ui;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Lays a workflow's jobs out as a graph, left to right: a job's column is the length of the longest chain of jobs it
 * requires, so every edge points rightwards; within a column jobs keep the workflow's order. Coordinates are in SVG
 * user units. Pure.
 */
public record WorkflowGraph(int width, int height, List<Node> nodes, List<Edge> edges) {
    static final int NODE_WIDTH = 180;
    static final int NODE_HEIGHT = 36;
    static final int COLUMN_GAP = 48;
    static final int ROW_GAP = 14;
    static final int MARGIN = 4;

    /** A job's box: top-left corner. */
    public record Node(UiReads.JobNode job, int x, int y) {
        /** The job's name cut to fit its box. */
        public String label() {
            return job.name().length() <= 22 ? job.name() : job.name().substring(0, 21) + "…";
        }
    }

    /** A curve from the right side of one box to the left side of another, as an SVG path. */
    public record Edge(String path) {
    }

    static WorkflowGraph of(List<UiReads.JobNode> jobs) {
        Map<String, UiReads.JobNode> byName = new LinkedHashMap<>();
        jobs.forEach(job -> byName.put(job.name(), job));
        Map<String, Integer> columns = new HashMap<>();
        for (String name : byName.keySet()) {
            column(name, byName, columns, new ArrayList<>());
        }
        Map<Integer, Integer> rows = new HashMap<>();
        Map<String, Node> nodes = new LinkedHashMap<>();
        int width = 0;
        int height = 0;
        for (UiReads.JobNode job : byName.values()) {
            int column = columns.get(job.name());
            int row = rows.merge(column, 1, Integer::sum) - 1;
            int x = MARGIN + column * (NODE_WIDTH + COLUMN_GAP);
            int y = MARGIN + row * (NODE_HEIGHT + ROW_GAP);
            nodes.put(job.name(), new Node(job, x, y));
            width = Math.max(width, x + NODE_WIDTH + MARGIN);
            height = Math.max(height, y + NODE_HEIGHT + MARGIN);
        }
        List<Edge> edges = new ArrayList<>();
        for (Node to : nodes.values()) {
            for (String required : to.job().requires()) {
                Node from = nodes.get(required);
                if (from != null) {
                    int x1 = from.x() + NODE_WIDTH;
                    int y1 = from.y() + NODE_HEIGHT / 2;
                    int x2 = to.x();
                    int y2 = to.y() + NODE_HEIGHT / 2;
                    int bend = (x2 - x1) / 2;
                    edges.add(new Edge("M" + x1 + " " + y1 + " C" + (x1 + bend) + " " + y1 + " " + (x2 - bend) + " "
                            + y2 + " " + x2 + " " + y2));
                }
            }
        }
        return new WorkflowGraph(width, height, List.copyOf(nodes.values()), edges);
    }

    /** The job's column; a cycle (which the compiler refuses) or a missing job counts as no requirement. */
    private static int column(String name, Map<String, UiReads.JobNode> jobs, Map<String, Integer> columns,
                              List<String> path) {
        Integer known = columns.get(name);
        if (known != null) {
            return known;
        }
        UiReads.JobNode job = jobs.get(name);
        if (job == null || path.contains(name)) {
            return -1;
        }
        path.add(name);
        int column = 0;
        for (String required : job.requires()) {
            column = Math.max(column, column(required, jobs, columns, path) + 1);
        }
        path.removeLast();
        columns.put(name, column);
        return column;
    }
}
