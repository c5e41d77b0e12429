package dev.floe.cli;

import dev.floe.arrow.BadRecordPolicy;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** {@code --on-error fail|skip|dlq}, as {@link BadRecordPolicy#of} reads it. */
final class BadRecordPolicyFlag implements ITypeConverter<BadRecordPolicy> {
  @Override
  public BadRecordPolicy convert(String value) {
    try {
      return BadRecordPolicy.of(value);
    } catch (IllegalArgumentException e) {
      throw new TypeConversionException(e.getMessage());
    }
  }
}
