/** Implementation details of the arrow-bridge facade. Not API: may change without notice. */
package dev.floe.arrow.internal;
