package dev.floe.ffm;

import dev.floe.ffm.internal.floe_h;

/** Run in a child JVM by {@link NativeLibraryTest}: loads libfloe twice and reports each outcome. */
public final class LoaderProbe {
  private LoaderProbe() {}

  public static void main(String[] args) {
    for (int attempt = 1; attempt <= 2; attempt++) {
      try {
        NativeLibrary.load();
        System.out.println("attempt " + attempt + ": loaded abi=" + floe_h.floe_abi_version());
      } catch (NativeLibraryLoadException e) {
        System.out.println("attempt " + attempt + ": failed: " + e.getMessage());
      }
    }
  }
}
