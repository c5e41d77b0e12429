package dev.floe.corpus;

import dev.floe.corpus.NexmarkEvent.Auction;
import dev.floe.corpus.NexmarkEvent.Bid;
import dev.floe.corpus.NexmarkEvent.Person;
import java.nio.charset.StandardCharsets;

/**
 * Writes Nexmark events as Flink's Kafka JSON format does: one object with {@code event_type},
 * {@code person}, {@code auction} and {@code bid} (two of them JSON {@code null}), nested fields in
 * schema order, timestamps in Flink's SQL format ({@link FlinkTimestamps}).
 */
public final class NexmarkJson {
  private NexmarkJson() {}

  public static byte[] toBytes(NexmarkEvent event) {
    return toString(event).getBytes(StandardCharsets.UTF_8);
  }

  public static String toString(NexmarkEvent event) {
    StringBuilder out = new StringBuilder(256);
    append(event, out);
    return out.toString();
  }

  public static void append(NexmarkEvent event, StringBuilder out) {
    out.append("{\"event_type\":").append(event.eventType());
    out.append(",\"person\":");
    if (event instanceof Person p) {
      out.append("{\"id\":").append(p.id());
      field(out, "name", p.name());
      field(out, "emailAddress", p.emailAddress());
      field(out, "creditCard", p.creditCard());
      field(out, "city", p.city());
      field(out, "state", p.state());
      field(out, "dateTime", FlinkTimestamps.format(p.dateTime()));
      field(out, "extra", p.extra());
      out.append('}');
    } else {
      out.append("null");
    }
    out.append(",\"auction\":");
    if (event instanceof Auction a) {
      out.append("{\"id\":").append(a.id());
      field(out, "itemName", a.itemName());
      field(out, "description", a.description());
      out.append(",\"initialBid\":").append(a.initialBid());
      out.append(",\"reserve\":").append(a.reserve());
      field(out, "dateTime", FlinkTimestamps.format(a.dateTime()));
      field(out, "expires", FlinkTimestamps.format(a.expires()));
      out.append(",\"seller\":").append(a.seller());
      out.append(",\"category\":").append(a.category());
      field(out, "extra", a.extra());
      out.append('}');
    } else {
      out.append("null");
    }
    out.append(",\"bid\":");
    if (event instanceof Bid b) {
      out.append("{\"auction\":").append(b.auction());
      out.append(",\"bidder\":").append(b.bidder());
      out.append(",\"price\":").append(b.price());
      field(out, "channel", b.channel());
      field(out, "url", b.url());
      field(out, "dateTime", FlinkTimestamps.format(b.dateTime()));
      field(out, "extra", b.extra());
      out.append('}');
    } else {
      out.append("null");
    }
    out.append('}');
  }

  private static void field(StringBuilder out, String name, String value) {
    out.append(",\"").append(name).append("\":");
    JsonStrings.appendQuoted(value, out);
  }
}
