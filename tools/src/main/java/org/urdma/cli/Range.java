package org.urdma.cli;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The values a numeric picocli option or parameter accepts. {@link OptionChecks} checks every value the user gave
 * against it before the command runs (a bad value is refused, never replaced by a default); a test makes sure every
 * numeric option of the CLI carries one.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface Range {
    /** Smallest value accepted. */
    double min() default Double.NEGATIVE_INFINITY;

    /** Largest value accepted. */
    double max() default Double.POSITIVE_INFINITY;

    /** When not empty, the only values accepted (e.g. the path MTUs). */
    long[] oneOf() default {};

    /** The value must be a power of two. */
    boolean powerOfTwo() default false;

    /** The value must be a whole number (for double options). */
    boolean integer() default false;

    /** Why, appended to the message (e.g. "perftest's limit"). */
    String why() default "";
}
