package org.urdma.switchemu.world.fct;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The numbers flow files and fct files use for a run's hosts: host {@code hN} is number N (the node id of an
 * imported HPCC topology, the index of a generated fabric's host); a host named otherwise is its position in the
 * host list.
 */
public final class HostNumbers {
    private static final Pattern H = Pattern.compile("h(\\d{1,6})");

    private final int[] number;
    private final Map<Integer, Integer> index = new HashMap<>();

    public HostNumbers(List<String> hosts) {
        number = new int[hosts.size()];
        boolean named = true;
        for (String h : hosts) named &= H.matcher(h).matches();
        for (int i = 0; i < number.length; i++) {
            Matcher m = H.matcher(hosts.get(i));
            number[i] = named && m.matches() ? Integer.parseInt(m.group(1)) : i;
            if (index.put(number[i], i) != null) {
                throw new IllegalArgumentException("hosts: two hosts are number " + number[i]);
            }
        }
    }

    /** The number of host index {@code i}. */
    public int number(int i) {
        return number[i];
    }

    /** The host index of number {@code n}, or -1. */
    public int index(int n) {
        Integer i = index.get(n);
        return i == null ? -1 : i;
    }

    public int hosts() {
        return number.length;
    }

    /** HPCC's address of a node id, 11.X.Y.1 (ip_to_node_id reads the id back from its middle bytes). */
    public static int hpccIp(int node) {
        return 0x0b000001 + (node / 256) * 0x0001_0000 + (node % 256) * 0x0000_0100;
    }
}
