/** Files dropped or images pasted anywhere in the chat go to the message box, which uploads them. */

/**
 * A file dropped elsewhere in the conversation (on the message list) goes to the message box, as
 * if dropped there: the box uploads it and puts its link in. Runs inside the drop event, while
 * its files can still be read.
 */
export function dropOnComposer(e: DragEvent): void {
  const box = document.querySelector("form.composer");
  if (!box || !e.dataTransfer?.files.length) return;
  e.preventDefault();
  box.dispatchEvent(
    new DragEvent("drop", { dataTransfer: e.dataTransfer, bubbles: true, cancelable: true }),
  );
}

/** Lets files (and only files: dragged text or links keep their own ways) be dropped here. */
export function allowFileDrop(e: DragEvent): void {
  if (e.dataTransfer?.types.includes("Files")) e.preventDefault();
}

/** Whether `el` takes pasted text itself (a form field, an editable element). */
const editable = (el: EventTarget | null) =>
  el instanceof HTMLElement &&
  (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));

// An image pasted with the focus elsewhere in the chat (on the messages, after a click) goes to
// the message box too; pasted into a field, it is that field's.
if (typeof document !== "undefined") {
  document.addEventListener("paste", (e) => {
    const box = document.querySelector<HTMLTextAreaElement>("#composer-input");
    if (!box || editable(e.target) || !e.clipboardData) return;
    if (![...e.clipboardData.files].some((f) => f.type.startsWith("image/"))) return;
    e.preventDefault();
    box.focus();
    box.dispatchEvent(
      new ClipboardEvent("paste", {
        clipboardData: e.clipboardData,
        bubbles: true,
        cancelable: true,
      }),
    );
  });
}
