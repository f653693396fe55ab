import { at } from "../base.ts";

/** The Parley mark and name. */
export function Logo() {
  return (
    <div class="logo" aria-hidden="true">
      <img src={at("/icon.svg")} alt="" width="32" height="32" />
      <span>Parley</span>
    </div>
  );
}
