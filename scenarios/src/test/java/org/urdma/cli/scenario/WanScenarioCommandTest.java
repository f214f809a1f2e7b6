package org.urdma.cli.scenario;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WanScenarioCommandTest {
    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "--rate;0;--rate: must be 1M..100G",
        "--rate;fast;--rate: a rate like 1G or 500M",
        "--rtt;20,x;--rtt: 'x' is not a number",
        "--rtt;-5;--rtt: -5 must be 0..1000",
        "--loss;101;--loss: 101 must be 0..100",
        "--loss;1,1;--loss: 1 is given twice",
        "--duration;0;--duration: must be 1..3600",
        "--protocols;tcp-reno;--protocols: unknown protocol 'tcp-reno'"})
    void badValueIsRefusedInOneLineNamingTheOption(String option, String value, String message) {
        String line = Refusal.of("scenario", "wan", option, value, "--out", "/nonexistent/never-written");
        assertTrue(line.startsWith("urdma scenario wan: " + message), line);
    }
}
