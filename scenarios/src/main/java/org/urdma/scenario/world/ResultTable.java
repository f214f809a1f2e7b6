package org.urdma.scenario.world;

import java.util.ArrayList;
import java.util.List;

/** A scenario's result: named columns, rows of text cells, and notes; printed as an aligned table or CSV. */
public final class ResultTable {
    private final String title;
    private final List<String> columns;
    private final List<List<String>> rows = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    public ResultTable(String title, String... columns) {
        this.title = title;
        this.columns = List.of(columns);
    }

    public ResultTable row(Object... cells) {
        if (cells.length != columns.size()) {
            throw new IllegalArgumentException("row: " + cells.length + " cells for " + columns.size() + " columns");
        }
        List<String> r = new ArrayList<>();
        for (Object c : cells) r.add(String.valueOf(c));
        rows.add(r);
        return this;
    }

    public ResultTable note(String text) {
        notes.add(text);
        return this;
    }

    public String title() {
        return title;
    }

    public List<String> columns() {
        return columns;
    }

    public List<List<String>> rows() {
        return rows;
    }

    /** The cell of row {@code row} in column {@code column}. */
    public String cell(int row, String column) {
        int c = columns.indexOf(column);
        if (c < 0) throw new IllegalArgumentException("column: no '" + column + "' in " + columns);
        return rows.get(row).get(c);
    }

    public String text() {
        int[] w = new int[columns.size()];
        for (int i = 0; i < w.length; i++) {
            w[i] = columns.get(i).length();
            for (List<String> r : rows) w[i] = Math.max(w[i], r.get(i).length());
        }
        StringBuilder sb = new StringBuilder(title).append('\n');
        line(sb, columns, w);
        for (List<String> r : rows) line(sb, r, w);
        for (String n : notes) sb.append("  ").append(n).append('\n');
        return sb.toString();
    }

    private static void line(StringBuilder sb, List<String> cells, int[] w) {
        for (int i = 0; i < cells.size(); i++) {
            sb.append(i == 0 ? "" : "  ").append(String.format("%" + (i == 0 ? "-" : "") + w[i] + "s", cells.get(i)));
        }
        sb.append('\n');
    }

    public String csv() {
        StringBuilder sb = new StringBuilder(String.join(",", columns)).append('\n');
        for (List<String> r : rows) {
            List<String> q = new ArrayList<>();
            for (String c : r) q.add(c.contains(",") || c.contains("\"") ? '"' + c.replace("\"", "\"\"") + '"' : c);
            sb.append(String.join(",", q)).append('\n');
        }
        return sb.toString();
    }
}
