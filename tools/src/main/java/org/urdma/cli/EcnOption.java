package org.urdma.cli;

import org.urdma.transport.link.Ecn;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Parses {@code --ecn not-ect|ect0|ect1}, the ECN codepoint of RoCEv2 / PAXI Standard frames (a NIC's setting). */
public final class EcnOption implements ITypeConverter<Ecn> {
    @Override
    public Ecn convert(String value) {
        try {
            return Ecn.named(value.trim());
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException("not-ect, ect0 or ect1, was '" + value + "'");
        }
    }
}
