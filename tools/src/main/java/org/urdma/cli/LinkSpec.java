package org.urdma.cli;

import java.util.Locale;
import org.urdma.nativeio.NativeException;
import org.urdma.nativeio.NetInterface;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Checks a {@code --link} value when it is parsed: {@code memory}, {@code afpacket:IF} with IF an interface of this
 * network namespace, or {@code tap:IF} (made if missing). A wrong name fails here, naming the option, instead of
 * deep in the link's setup.
 */
public final class LinkSpec implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
        String v = value.trim();
        if (v.equalsIgnoreCase("memory")) return "memory";
        int colon = v.indexOf(':');
        String kind = colon < 0 ? v.toLowerCase(Locale.ROOT) : v.substring(0, colon).toLowerCase(Locale.ROOT);
        String ifname = colon < 0 ? "" : v.substring(colon + 1);
        if (!kind.equals("afpacket") && !kind.equals("tap")) {
            throw new TypeConversionException("memory, afpacket:IF or tap:IF, was '" + value + "'");
        }
        if (ifname.isEmpty()) throw new TypeConversionException("give an interface, e.g. " + kind + ":eth0, was '" + value + "'");
        try {
            if (kind.equals("afpacket")) NetInterface.lookup(ifname);
            else if (ifname.length() > 15 || ifname.contains("/") || ifname.isBlank()) {
                throw new IllegalArgumentException("not an interface name (1-15 characters, no '/'): '" + ifname + "'");
            }
        } catch (NativeException | IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
        return kind + ":" + ifname;
    }
}
