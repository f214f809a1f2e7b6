package org.urdma.transport.impair;

/** netem's loss models. */
public enum LossModel {
    NONE,
    /** {@code loss random P [CORR]}: independent (or correlated) per-packet loss. */
    RANDOM,
    /** {@code loss gemodel p [r [1-h [1-k]]]}: Gilbert-Elliott, two states. */
    GILBERT_ELLIOTT,
    /** {@code loss state p13 [p31 [p32 [p23 [p14]]]]}: the 4-state Markov model (GI model). */
    FOUR_STATE
}
