// Adds image files by drag and drop or with the file picker (a real button, so keyboard users can).
import { useRef, useState, type ReactNode } from 'react';

export function DropZone({
  label,
  onFiles,
  children,
  disabled,
}: {
  label: string;
  onFiles(files: File[]): void;
  children?: ReactNode;
  disabled?: boolean;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const accept = (list: FileList | null) => {
    const files = Array.from(list ?? []).filter((f) => f.type.startsWith('image/'));
    if (files.length) onFiles(files);
  };
  return (
    <div
      className={`drop-zone${over ? ' drop-zone-over' : ''}`}
      role="group"
      aria-label={label}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        if (!disabled) accept(e.dataTransfer.files);
      }}
    >
      <p>Drop photos here, or</p>
      <button
        type="button"
        disabled={disabled}
        onClick={async () => {
          // In the desktop app the system's own photo dialog (the preload bridge); in a browser the
          // file input.
          const bridge = window.shelfAudit;
          if (!bridge?.openPhotos) return input.current?.click();
          const picked = await bridge.openPhotos({ multiple: true });
          const files = picked.map((p) => new File([new Uint8Array(p.bytes)], p.name, { type: p.type }));
          if (files.length) onFiles(files.filter((f) => f.type.startsWith('image/')));
        }}
      >
        Choose files…
      </button>
      <input
        ref={input}
        type="file"
        accept="image/*"
        multiple
        hidden
        aria-label={`${label}: choose files`}
        onChange={(e) => {
          accept(e.target.files);
          e.target.value = '';
        }}
      />
      {children}
    </div>
  );
}
