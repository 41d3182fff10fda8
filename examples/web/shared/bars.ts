/// <reference lib="dom" />
// The class probabilities as horizontal bars, one row per digit, the predicted one highlighted.
// Each row carries its probability in `data-p` and the container the predicted class in
// `data-prediction`, so that tests (and screen readers, through the text) read what is drawn.

/** Creates the ten rows inside `container` (once). */
export function createBars(container: HTMLElement, classes = 10): void {
  container.classList.add('bars');
  container.replaceChildren(
    ...Array.from({ length: classes }, (_, digit) => {
      const row = document.createElement('div');
      row.className = 'bar-row';
      row.dataset['class'] = String(digit);
      row.innerHTML = `<span class="bar-label">${digit}</span><span class="bar-track"><span class="bar-fill"></span></span><span class="bar-value">–</span>`;
      return row;
    }),
  );
}

/** Shows `probabilities` (or clears the bars when undefined); returns the predicted class. */
export function showBars(container: HTMLElement, probabilities: ArrayLike<number> | undefined): number | undefined {
  let best: number | undefined;
  if (probabilities) {
    best = 0;
    for (let i = 1; i < probabilities.length; i++) if (probabilities[i]! > probabilities[best]!) best = i;
  }
  container.querySelectorAll<HTMLElement>('.bar-row').forEach((row, digit) => {
    const p = probabilities?.[digit];
    row.dataset['p'] = p === undefined ? '' : String(p);
    row.classList.toggle('best', digit === best);
    row.querySelector<HTMLElement>('.bar-fill')!.style.width = `${((p ?? 0) * 100).toFixed(1)}%`;
    row.querySelector<HTMLElement>('.bar-value')!.textContent = p === undefined ? '–' : `${(p * 100).toFixed(1)}%`;
  });
  container.dataset['prediction'] = best === undefined ? '' : String(best);
  return best;
}
