import { Notice } from "@clinsign/ui";

/** A failed action's message at the top of a flush card. */
export function CardError({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <div className="cs-card__body">
      <Notice tone="danger" role="alert">
        {message}
      </Notice>
    </div>
  );
}
