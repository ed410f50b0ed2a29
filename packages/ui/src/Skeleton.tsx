/** A grey placeholder line while data loads; screen readers hear the label instead. */
export function Skeleton({ label, lines = 1 }: { label: string; lines?: number }) {
  return (
    <div role="status" aria-label={label} className="cs-stack">
      {Array.from({ length: lines }, (_, index) => (
        <span key={index} className="cs-skeleton" aria-hidden="true" />
      ))}
    </div>
  );
}
