package dev.floe.testing;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;

/**
 * A grouped bar chart drawn with Java2D (headless): one group per corpus, one bar per contender,
 * the bar at the median, a whisker over the range, the median printed above. Nothing but the JDK.
 * The benchmark reports' charts (the end-to-end harness, the Flink benchmark).
 */
public final class BarChart {
  private static final Color[] PALETTE = {
    new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c), new Color(0x7f7f7f), new Color(0x9467bd)
  };
  private static final int WIDTH = 1000;
  private static final int HEIGHT = 560;
  private static final int LEFT = 90;
  private static final int RIGHT = 30;
  private static final int TOP = 70; // with a one-line subtitle; each further line adds LINE
  private static final int LINE = 15;
  private static final int BOTTOM = 110;

  /** One bar: its median and range; NaN for a contender with no valid run (drawn as "failed"). */
  public record Bar(String series, double median, double min, double max) {}

  /** One group of bars under a label. */
  public record Group(String label, List<Bar> bars) {}

  private BarChart() {}

  public static void write(Path png, String title, String subtitle, String yAxis, List<String> series, List<Group> groups)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, WIDTH, HEIGHT);
      draw(g, title, subtitle, yAxis, series, groups);
    } finally {
      g.dispose();
    }
    ImageIO.write(image, "png", png.toFile());
  }

  private static void draw(Graphics2D g, String title, String subtitle, String yAxis, List<String> series,
      List<Group> groups) {
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 18));
    g.drawString(title, LEFT, 30);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    g.setColor(new Color(0x444444));
    List<String> lines = wrap(subtitle, g.getFontMetrics(), WIDTH - LEFT - RIGHT);
    for (int i = 0; i < lines.size(); i++) {
      g.drawString(lines.get(i), LEFT, 50 + i * LINE);
    }
    int plotTop = TOP + (lines.size() - 1) * LINE;

    double top = 0;
    for (Group group : groups) {
      for (Bar bar : group.bars()) {
        if (!Double.isNaN(bar.max())) {
          top = Math.max(top, bar.max());
        }
      }
    }
    double step = niceStep(top <= 0 ? 1 : top / 5);
    double axisMax = Math.ceil((top <= 0 ? 1 : top) / step) * step;
    int plotW = WIDTH - LEFT - RIGHT;
    int plotH = HEIGHT - plotTop - BOTTOM;
    int baseY = plotTop + plotH;

    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    FontMetrics fm = g.getFontMetrics();
    for (double v = 0; v <= axisMax + step / 2; v += step) {
      int y = baseY - (int) Math.round(v / axisMax * plotH);
      g.setColor(new Color(0xe6e6e6));
      g.drawLine(LEFT, y, LEFT + plotW, y);
      g.setColor(Color.DARK_GRAY);
      String label = compact(v);
      g.drawString(label, LEFT - 8 - fm.stringWidth(label), y + 4);
    }
    g.setColor(Color.DARK_GRAY);
    g.drawLine(LEFT, plotTop, LEFT, baseY);
    g.drawLine(LEFT, baseY, LEFT + plotW, baseY);
    Graphics2D rotated = (Graphics2D) g.create();
    rotated.rotate(-Math.PI / 2);
    rotated.drawString(yAxis, -(plotTop + plotH / 2 + fm.stringWidth(yAxis) / 2), 20);
    rotated.dispose();

    int groupW = plotW / Math.max(1, groups.size());
    int gap = Math.min(40, groupW / 4); // between groups; narrow when there are many of them
    int barW = Math.min(70, (groupW - gap) / Math.max(1, series.size()));
    for (int gi = 0; gi < groups.size(); gi++) {
      Group group = groups.get(gi);
      int groupX = LEFT + gi * groupW + (groupW - barW * series.size()) / 2;
      for (int si = 0; si < series.size(); si++) {
        Bar bar = find(group, series.get(si));
        int x = groupX + si * barW;
        Color color = PALETTE[si % PALETTE.length];
        if (bar == null) {
          continue;
        }
        if (Double.isNaN(bar.median())) {
          g.setColor(Color.RED);
          g.drawString("failed", x + 4, baseY - 6);
          continue;
        }
        int h = (int) Math.round(bar.median() / axisMax * plotH);
        g.setColor(color);
        g.fillRect(x + 4, baseY - h, barW - 8, h);
        g.setColor(Color.BLACK);
        g.setStroke(new BasicStroke(1.5f));
        int yMin = baseY - (int) Math.round(bar.min() / axisMax * plotH);
        int yMax = baseY - (int) Math.round(bar.max() / axisMax * plotH);
        int cx = x + barW / 2;
        g.drawLine(cx, yMin, cx, yMax);
        g.drawLine(cx - 6, yMin, cx + 6, yMin);
        g.drawLine(cx - 6, yMax, cx + 6, yMax);
        String label = compact(bar.median());
        g.drawString(label, cx - fm.stringWidth(label) / 2, Math.min(yMax, baseY - h) - 5);
      }
      g.setColor(Color.BLACK);
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
      FontMetrics gm = g.getFontMetrics();
      g.drawString(group.label(), LEFT + gi * groupW + (groupW - gm.stringWidth(group.label())) / 2, baseY + 22);
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    }

    int lx = LEFT;
    int ly = HEIGHT - 45;
    for (int si = 0; si < series.size(); si++) {
      g.setColor(PALETTE[si % PALETTE.length]);
      g.fillRect(lx, ly - 10, 14, 14);
      g.setColor(Color.BLACK);
      g.drawString(series.get(si), lx + 20, ly + 2);
      lx += 40 + fm.stringWidth(series.get(si));
    }
    g.setColor(new Color(0x666666));
    g.drawString("bars: median of the measured runs; whiskers: min..max", LEFT, HEIGHT - 15);
  }

  /** Words of {@code text} in lines no wider than {@code width}. */
  static List<String> wrap(String text, FontMetrics fm, int width) {
    List<String> lines = new java.util.ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String word : text.split(" ")) {
      if (!line.isEmpty() && fm.stringWidth(line + " " + word) > width) {
        lines.add(line.toString());
        line.setLength(0);
      }
      if (!line.isEmpty()) {
        line.append(' ');
      }
      line.append(word);
    }
    lines.add(line.toString());
    return lines;
  }

  private static Bar find(Group group, String series) {
    return group.bars().stream().filter(b -> b.series().equals(series)).findFirst().orElse(null);
  }

  /** 1, 2 or 5 times a power of ten, at least {@code raw}. */
  static double niceStep(double raw) {
    double power = Math.pow(10, Math.floor(Math.log10(raw)));
    for (double m : new double[] {1, 2, 5, 10}) {
      if (m * power >= raw) {
        return m * power;
      }
    }
    return 10 * power;
  }

  /** 1234567 -> "1.23M", 45600 -> "45.6k". */
  static String compact(double v) {
    if (v >= 1e6) {
      return String.format("%.2fM", v / 1e6);
    }
    if (v >= 1e3) {
      return String.format("%.1fk", v / 1e3);
    }
    if (v >= 10 || v == Math.rint(v)) {
      return String.format("%.0f", v);
    }
    return String.format("%.2f", v); // ratios and seconds: 1.59, not 2
  }
}
