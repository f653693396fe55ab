/** A bar of how much of a bound is used, with the figures in words beneath it. */
import { t } from "../i18n.ts";
import { formatSize } from "../../../protocol/size.ts";

export function UsageMeter(p: { used: number; total: number; free: number; label: string }) {
  const share = p.total ? Math.min(1, p.used / p.total) : 0;
  return (
    <>
      <div
        class="meter"
        role="meter"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(share * 100)}
        aria-label={p.label}
      >
        <span style={{ width: `${Math.round(share * 100)}%` }} />
      </div>
      <p class="muted">
        {t("{used} used of {total} ({free} free)", {
          used: formatSize(p.used),
          total: formatSize(p.total),
          free: formatSize(p.free),
        })}
      </p>
    </>
  );
}
