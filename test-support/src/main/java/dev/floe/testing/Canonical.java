package dev.floe.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.corpus.NexmarkEvent.Auction;
import dev.floe.corpus.NexmarkEvent.Bid;
import dev.floe.corpus.NexmarkEvent.Person;
import dev.floe.corpus.NexmarkEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.UUID;

/**
 * The corpora's records as the canonical row text of {@link TableFingerprint}: what each must read
 * back as from its table, computed from the generator's objects or the message bytes, without any
 * code a contender runs. One canonical form for every check: {@code (v1,v2,...)}, strings quoted,
 * timestamps in microseconds, uuids bare.
 */
public final class Canonical {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private Canonical() {}

  /** A Nexmark event in a table with the Nexmark schema (event_type, person, auction, bid structs). */
  public static String nexmark(NexmarkEvent event) {
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
    out.append(event instanceof Bid b ? bid(b) : "null");
    return out.append(')').toString();
  }

  /** A bid as a row of a bids table: (auction, bidder, price, channel, url, dateTime, extra). */
  public static String bid(Bid b) {
    StringBuilder out = new StringBuilder("(");
    out.append(b.auction()).append(',').append(b.bidder()).append(',').append(b.price()).append(',');
    text(out, b.channel()).append(',');
    text(out, b.url()).append(',').append(b.dateTime() * 1000).append(',');
    return text(out, b.extra()).append(')').toString();
  }

  /**
   * A synthetic event's message in a table with the synthetic schema (uuid id, user_id,
   * event_type, value, info, ts as timestamptz), read with a plain Jackson tree.
   */
  public static String synthetic(byte[] message) {
    JsonNode node;
    try {
      node = MAPPER.readTree(message);
    } catch (IOException e) {
      throw new UncheckedIOException("synthetic event is not JSON", e);
    }
    Instant ts = Instant.parse(node.get("ts").textValue());
    long micros = Math.addExact(Math.multiplyExact(ts.getEpochSecond(), 1_000_000L), ts.getNano() / 1000);
    StringBuilder out = new StringBuilder("(").append(UUID.fromString(node.get("id").textValue()));
    out.append(',').append(node.get("user_id").longValue()).append(',');
    text(out, node.get("event_type").textValue()).append(',').append(node.get("value").doubleValue()).append(',');
    JsonNode info = node.get("info");
    text(out, info == null || info.isNull() ? null : info.textValue()).append(',').append(micros);
    return out.append(')').toString();
  }

  private static StringBuilder text(StringBuilder out, String s) {
    return s == null ? out.append("null") : out.append('"').append(s).append('"');
  }
}
