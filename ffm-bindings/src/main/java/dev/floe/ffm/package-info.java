/**
 * Access to libfloe, the native core: {@link dev.floe.ffm.NativeLibrary} finds, loads and checks
 * the library. The jextract-generated downcalls live in {@code dev.floe.ffm.internal} and are not
 * API; use the facade in {@code dev.floe.arrow} (module arrow-bridge) instead.
 */
package dev.floe.ffm;
