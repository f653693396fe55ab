/**
 * Every text colour the client picks (the 32 nick colours and IRC's 16) reaches WCAG AA (4.5:1)
 * on every surface of the theme it is drawn in, light and dark, and stays recognisable: its hue
 * is kept and colours that differed still differ.
 */
import { assert, assertEquals } from "../../../support/assert.ts";
import {
  contrast,
  MIN_CONTRAST,
  parseHex,
  type Rgb,
  SURFACES,
  type Theme,
  toHex,
} from "../../../../static/app/contrast.ts";
import { NICK_COLOURS, nickRgb } from "../../../../static/app/nick_color.ts";
import { PALETTE, textColor } from "../../../../static/app/irc_format.ts";

const THEMES: Theme[] = ["light", "dark"];

/** The two colours of a `light-dark(a, b)` value. */
function sides(css: string): Record<Theme, Rgb> {
  const m = /^light-dark\((#[0-9a-f]{6}), (#[0-9a-f]{6})\)$/.exec(css);
  assert(m, `a themed colour: ${css}`);
  return { light: parseHex(m[1]), dark: parseHex(m[2]) };
}

function hue([r, g, b]: Rgb): number | undefined {
  const max = Math.max(r, g, b), min = Math.min(r, g, b);
  if (max - min < 8) return undefined; // grey: no hue to keep
  const d = max - min;
  const h = max === r
    ? (g - b) / d + (g < b ? 6 : 0)
    : max === g
    ? (b - r) / d + 2
    : (r - g) / d + 4;
  return h * 60;
}

function assertReadable(c: Rgb, theme: Theme, what: string) {
  for (const bg of SURFACES[theme]) {
    const ratio = contrast(c, bg);
    assert(
      ratio >= MIN_CONTRAST,
      `${what} ${toHex(c)} on ${toHex(bg)} (${theme}): ${ratio.toFixed(2)}:1`,
    );
  }
}

Deno.test("contrast: the ratio is WCAG's", () => {
  assertEquals(contrast(parseHex("#000000"), parseHex("#ffffff")).toFixed(1), "21.0");
  // The example: a light nick green on the light page.
  assertEquals(contrast(parseHex("#6eaa31"), parseHex("#f7f7f5")).toFixed(1), "2.6");
});

Deno.test("contrast: the surfaces are the theme's backgrounds in app.css", async () => {
  const css = await Deno.readTextFile(new URL("../../../../static/app.css", import.meta.url));
  for (const name of ["--bg", "--bg-elev", "--bg-side"]) {
    const m = new RegExp(`${name}: light-dark\\((#[0-9a-f]{6}), (#[0-9a-f]{6})\\)`).exec(css);
    assert(m, name);
    const hexes = (t: Theme) => SURFACES[t].map(toHex);
    assert(hexes("light").includes(m[1]), `${name} light ${m[1]}`);
    assert(hexes("dark").includes(m[2]), `${name} dark ${m[2]}`);
  }
});

Deno.test("contrast: every nick colour is readable in both themes and they stay apart", () => {
  for (const theme of THEMES) {
    const seen = new Set<string>();
    for (let i = 0; i < NICK_COLOURS; i++) {
      const c = nickRgb(i, theme);
      assertReadable(c, theme, `nick colour ${i}`);
      seen.add(toHex(c));
      const h = hue(c);
      assert(
        h !== undefined && Math.abs(((h - (i % 16) * 22.5 + 540) % 360) - 180) < 6,
        `hue ${i}`,
      );
    }
    assertEquals(seen.size, NICK_COLOURS, `${theme}: 32 different colours`);
  }
});

Deno.test("contrast: IRC's 16 colours are readable in both themes, hue kept, still 16", () => {
  for (const theme of THEMES) {
    const seen = new Set<string>();
    PALETTE.forEach((hex, i) => {
      const c = sides(textColor(i)!)[theme];
      assertReadable(c, theme, `IRC colour ${i} (${hex})`);
      seen.add(toHex(c));
      const want = hue(parseHex(hex)), got = hue(c);
      if (want !== undefined) {
        assert(got !== undefined && Math.abs(((got - want + 540) % 360) - 180) < 6, `hue ${i}`);
      }
    });
    assertEquals(seen.size, 16, `${theme}: 16 different colours`);
  }
  // Already readable colours are left as they are: navy on the light page, white on the dark.
  assertEquals(sides(textColor(2)!).light, parseHex("#00007f"));
  assertEquals(sides(textColor(0)!).dark, parseHex("#ffffff"));
  // A hex colour a client sent is made readable too.
  assertReadable(sides(textColor("#6eaa31")!).light, "light", "#6eaa31");
});
