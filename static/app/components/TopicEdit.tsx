/**
 * A channel's topic edited in place in the header: Enter sets it, Escape or leaving the field
 * gives up, and the server's refusal stays shown under it. In the after-paint chunk: it is only
 * ever opened by a click.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { t } from "../i18n.ts";
import { socket } from "../session.ts";

export function TopicEdit(p: { cid: string; conv: string; topic: string; done: () => void }) {
  const [text, setText] = useState(p.topic);
  const [error, setError] = useState("");
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const save = async () => {
    const next = text.trim();
    if (next === p.topic) return p.done();
    const answer = await socket.request({
      method: "send",
      connection_id: p.cid,
      conversation_id: p.conv,
      message: `/topic ${next}`,
    });
    if (answer.errors) return setError(answer.errors.map((e) => e.message).join(" "));
    p.done();
  };
  return (
    <form
      class="topic-edit"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <label for="topic-input" class="visually-hidden">{t("Topic")}</label>
      <input
        id="topic-input"
        ref={input}
        value={text}
        onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") p.done();
        }}
        onBlur={() => !error && p.done()}
        aria-invalid={!!error}
        aria-describedby={error ? "topic-error" : undefined}
      />
      {error && <span id="topic-error" class="error" role="alert">{error}</span>}
    </form>
  );
}
