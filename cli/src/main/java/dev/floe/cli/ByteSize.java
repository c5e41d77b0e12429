package dev.floe.cli;

import dev.floe.iceberg.ByteSizes;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Sizes on the command line, as {@link ByteSizes} reads them: {@code 512k}, {@code 128MiB}. */
final class ByteSize implements ITypeConverter<Long> {
  @Override
  public Long convert(String value) {
    try {
      return ByteSizes.parse(value);
    } catch (IllegalArgumentException e) {
      throw new TypeConversionException(e.getMessage());
    }
  }
}
