/** Small line icons drawn as inline SVG (no icon font, no emoji: they render everywhere). */

const PATHS: Record<string, string> = {
  bell: "M6 16V11a6 6 0 0 1 12 0v5l2 2H4zM10 20a2 2 0 0 0 4 0",
  search: "M11 4a7 7 0 1 0 0 14a7 7 0 1 0 0-14zM16 16l5 5",
  plus: "M12 5v14M5 12h14",
  user: "M12 4a4 4 0 1 0 0 8a4 4 0 1 0 0-8zM4 20c1-4 4-6 8-6s7 2 8 6",
  files: "M6 3h8l4 4v14H6zM14 3v4h4M9 12h6M9 16h6",
  shield: "M12 3l8 3v6c0 5-3.5 8-8 9c-4.5-1-8-4-8-9V6z",
  logout: "M10 4H5v16h5M15 8l4 4l-4 4M19 12H9",
  clip: "M20 11l-8 8a5 5 0 0 1-7-7l9-9a3.5 3.5 0 0 1 5 5l-9 9a2 2 0 0 1-3-3l8-8",
  gear:
    "M12 9a3 3 0 1 0 0 6a3 3 0 1 0 0-6zM12 2v3M12 19v3M2 12h3M19 12h3M4.9 4.9l2.1 2.1M17 17l2.1 2.1M4.9 19.1L7 17M17 7l2.1-2.1",
  menu: "M4 6h16M4 12h16M4 18h16",
  send: "M4 12l16-8l-6 16l-2-7z",
  pencil: "M4 20h4L19 9l-4-4L4 16zM13.5 6.5l4 4",
  users:
    "M9 5a3.5 3.5 0 1 0 0 7a3.5 3.5 0 1 0 0-7zM2.5 20c.8-3.5 3.3-5 6.5-5s5.7 1.5 6.5 5M16 5.5a3 3 0 0 1 0 6M18 15c2 .5 3.2 2 3.5 5",
};

/** An icon by name; decorative (hidden from screen readers: the button or link has the label). */
export function Icon(p: { name: keyof typeof PATHS | string; size?: number }) {
  const s = p.size ?? 18;
  return (
    <svg
      class="ico"
      width={s}
      height={s}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      stroke-width="1.8"
      stroke-linecap="round"
      stroke-linejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      <path d={PATHS[p.name] ?? ""} />
    </svg>
  );
}
