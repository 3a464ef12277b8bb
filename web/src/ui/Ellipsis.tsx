import { display } from './format.ts';

/** Spec §9: long text is cut with an ellipsis; the full text shows on hover. Empty shows '--'. */
export function Ellipsis({ value, width }: { value: unknown; width?: number | string }) {
  const text = display(value);
  return (
    <span className="ellipsis" title={text} style={width ? { maxWidth: width } : undefined}>
      {text}
    </span>
  );
}
