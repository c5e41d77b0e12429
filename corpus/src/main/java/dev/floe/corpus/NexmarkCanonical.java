package dev.floe.corpus;

import dev.floe.corpus.NexmarkEvent.Auction;
import dev.floe.corpus.NexmarkEvent.Bid;
import dev.floe.corpus.NexmarkEvent.Person;

/**
 * A Nexmark event as the canonical row text of floe's table fingerprint ({@code
 * dev.floe.iceberg.TableFingerprint}): what the event must read back as from a table with the
 * Nexmark schema (event_type, person, auction, bid structs; timestamps in microseconds). Lets a
 * check compare a table with the generator's events without decoding the JSON it was fed.
 */
public final class NexmarkCanonical {
  private NexmarkCanonical() {}

  public static String of(NexmarkEvent event) {
    StringBuilder out = new StringBuilder("(").append(event.eventType()).append(',');
    if (event instanceof Person p) {
      out.append('(').append(p.id()).append(',');
      text(out, p.name()).append(',');
      text(out, p.emailAddress()).append(',');
      text(out, p.creditCard()).append(',');
      text(out, p.city()).append(',');
      text(out, p.state()).append(',').append(p.dateTime() * 1000).append(',');
      text(out, p.extra()).append(')');
    } else {
      out.append("null");
    }
    out.append(',');
    if (event instanceof Auction a) {
      out.append('(').append(a.id()).append(',');
      text(out, a.itemName()).append(',');
      text(out, a.description()).append(',');
      out.append(a.initialBid()).append(',').append(a.reserve()).append(',');
      out.append(a.dateTime() * 1000).append(',').append(a.expires() * 1000).append(',');
      out.append(a.seller()).append(',').append(a.category()).append(',');
      text(out, a.extra()).append(')');
    } else {
      out.append("null");
    }
    out.append(',');
    if (event instanceof Bid b) {
      out.append('(').append(b.auction()).append(',').append(b.bidder()).append(',').append(b.price()).append(',');
      text(out, b.channel()).append(',');
      text(out, b.url()).append(',').append(b.dateTime() * 1000).append(',');
      text(out, b.extra()).append(')');
    } else {
      out.append("null");
    }
    return out.append(')').toString();
  }

  private static StringBuilder text(StringBuilder out, String s) {
    return s == null ? out.append("null") : out.append('"').append(s).append('"');
  }
}
