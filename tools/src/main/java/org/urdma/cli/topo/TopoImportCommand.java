package org.urdma.cli.topo;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.urdma.switchemu.topo.FabricSettings;
import org.urdma.switchemu.topo.HpccTopologyFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code urdma topo import FILE}: HPCC's topology text as topology YAML. */
@Command(name = "import", mixinStandardHelpOptions = true,
    description = {"Converts an HPCC simulator topology file (as its simulation/mix/fat.txt) into topology YAML.",
        "The file holds the counts of nodes, switches and links, the switch ids, then 'src dst rate delay error_rate' per",
        "link. Node i becomes host hI or switch sI, every switch with HPCC's run.py settings for the host rate (buffer,",
        "kmin/kmax per rate, pmax 20 %%, PFC on priority 3, ECMP)."})
public final class TopoImportCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "HPCC topology text")
    Path file;

    @Option(names = {"-o", "--out"}, paramLabel = "FILE", description = "write the YAML here (default: standard output)")
    Path out;

    @Override
    public Integer call() throws Exception {
        String text = Files.readString(file);
        String yaml = HpccTopologyFile.toYaml(text, file.toString(), FabricSettings.hpcc(HpccTopologyFile.hostRate(text, file.toString())));
        TopoGenCommand.writeYaml(spec, out, yaml, file.toString());
        return 0;
    }
}
