/**
 * What a drop held, taken while the drop event lasts (a `DataTransfer` is emptied once the
 * event returns, but the entries taken from it stay readable): each item's entry and file,
 * and the files. The folder reader (loaded only when a folder is dropped) reads the rest.
 */
export interface TakenDrop {
  readonly entries: readonly (FileSystemEntry | null)[];
  readonly itemFiles: readonly (File | null)[];
  readonly files: readonly File[];
}

export function takeDrop(transfer: DataTransfer): TakenDrop {
  const items = [...transfer.items];
  return {
    entries: items.map((item) => item.webkitGetAsEntry?.() ?? null),
    itemFiles: items.map((item) => item.getAsFile()),
    files: [...transfer.files],
  };
}
