"""``SummaryWriter``: log scalars, histograms, images, text and hyperparameters for TensorBoard.

A writer owns a directory of event files. Each ``add_*`` call builds a ``Summary`` proto (``summary.py``),
wraps it in an ``Event`` with the step and the wall time, and hands it to tensorboard's own
``EventFileWriter``, which queues events and appends them from a background thread (every ``flush_secs``,
when ``max_queue`` events wait, or on ``flush()``/``close()``) as TFRecords: the files
``tensorboard --logdir runs`` reads, the same ones PyTorch writes.
"""
import math
import os
import time
import warnings

import numpy as np

from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from ..._warnings import user_stacklevel
from . import summary as S

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """One event file in ``log_dir``: adds the step and wall time to events and passes them on."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self):
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None):
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)   # a numpy or tensor step: protobuf takes only a Python int
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None):
        self.add_event(Event(summary=summary), global_step, walltime)

    def flush(self):
        self.event_writer.flush()

    def close(self):
        self.event_writer.close()

    def reopen(self):
        """After close(): go on in a new event file in the same directory."""
        self.event_writer.reopen()


def _unsupported(name):
    """A method that says clearly that pedatorch does not log this kind of data (rather than AttributeError)."""
    def method(self, *args, **kwargs):
        raise NotImplementedError(f"pedatorch's SummaryWriter has no {name} (PyTorch's has); it logs scalars, "
                                  "histograms, images, figures, text, hparams and embeddings")
    method.__name__ = name
    return method


class SummaryWriter:
    """Writes TensorBoard event files into ``log_dir`` (default ``runs/CURRENT_DATETIME_HOSTNAME`` +
    ``comment``). ``purge_step``: a run restarted from a checkpoint at step T passes T, and TensorBoard
    hides the events of the crashed run from step T on. ``max_queue`` and ``flush_secs`` say how often
    pending events are written out; ``filename_suffix`` ends the event file's name.

    Values may be pedatorch Tensors (on any device), numpy arrays or Python numbers. Needs the
    ``tensorboard`` package, as PyTorch's does::

        from pedatorch.utils.tensorboard import SummaryWriter
        with SummaryWriter("runs/exp1") as writer:
            for step in range(100):
                writer.add_scalar("loss", loss.item(), step)
    """

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120, filename_suffix=""):
        if not log_dir:
            import socket
            from datetime import datetime
            log_dir = os.path.join("runs", datetime.now().strftime("%b%d_%H-%M-%S") + "_" + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.default_bins = S.tensorflow_bins()
        # The main file writer, and every writer by directory (add_scalars writes one subdirectory a line);
        # both are dropped on close() and made again by the next add_* call.
        self.file_writer = self.all_writers = None
        self._get_file_writer()

    def _get_file_writer(self):
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                # TensorBoard drops earlier events with step >= this one when it sees a (re)start of the session
                self.file_writer.add_event(Event(step=self.purge_step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=self.purge_step, session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        return self.log_dir

    def _add(self, summary, global_step=None, walltime=None):
        self._get_file_writer().add_summary(summary, global_step, walltime)

    # --- numbers ---------------------------------------------------------------------------------------

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False, double_precision=False):
        """One number (a Python number, a one-element tensor or array) under ``tag`` at ``global_step``."""
        self._add(S.scalar(tag, scalar_value, new_style=new_style, double_precision=double_precision),
                  global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Several numbers drawn in one chart: TensorBoard draws one line a run, so each key is written by its
        own writer in the subdirectory ``log_dir/<main_tag>_<key>``, all under the tag ``main_tag``."""
        walltime = time.time() if walltime is None else walltime
        base = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            path = base + "/" + main_tag.replace("/", "_") + "_" + tag
            if path not in self.all_writers:
                self.all_writers[path] = FileWriter(path, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers[path].add_summary(S.scalar(main_tag, value), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None):
        """The distribution of ``values`` (any shape). ``bins`` is anything ``numpy.histogram`` takes (a count,
        edges, 'auto', 'fd'...); the default 'tensorflow' is TensorFlow's fixed exponential edges."""
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._add(S.histogram(tag, values, bins, max_bins=max_bins), global_step, walltime)

    def add_histogram_raw(self, tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts,
                          global_step=None, walltime=None):
        """A histogram already counted: each bucket's right edge and count."""
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        self._add(S.histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts),
                  global_step, walltime)

    # --- pictures and text -----------------------------------------------------------------------------

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        """One image, laid out as ``dataformats`` (CHW, HWC, HW...): uint8 in 0..255 or floats in 0..1;
        1 channel (grey), 3 (RGB) or 4 (RGBA). Stored as PNG."""
        self._add(S.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        """A batch of images (NCHW by default), tiled into one grid image, 8 a row."""
        self._add(S.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """A matplotlib figure (or a list of them, as a grid) rendered to an image; closed unless close=False."""
        layout = "NCHW" if isinstance(figure, list) else "CHW"
        self.add_image(tag, S.figure_to_image(figure, close), global_step, walltime, dataformats=layout)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """A string, shown as markdown in TensorBoard's Text tab."""
        self._add(S.text(tag, text_string), global_step, walltime)

    # --- runs ------------------------------------------------------------------------------------------

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None, global_step=None):
        """A run's hyperparameters (numbers, strings, bools) with its final metrics, for the HParams tab.
        Written, as PyTorch does, into a new subdirectory ``run_name`` (default: the current time), so
        each call is one row of the table."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        experiment, start, end = S.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        log_dir = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=log_dir) as run:
            for summary in (experiment, start, end):
                run.file_writer.add_summary(summary, global_step)
            for k, v in metric_dict.items():
                run.add_scalar(k, v, global_step)

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """Accepted, but writes nothing: PyTorch draws the graph from a TorchScript trace of ``model`` turned
        into a TensorFlow GraphDef, which pedatorch does not build. It warns instead, so scripts that log
        their model's graph run unchanged. (pedatorch.viz draws autograd graphs.)"""
        warnings.warn("pedatorch's SummaryWriter.add_graph writes no graph (no TorchScript tracer to build it "
                      "from); the Graphs tab stays empty", stacklevel=user_stacklevel())

    def add_embedding(self, mat, metadata=None, label_img=None, global_step=None, tag="default", metadata_header=None):
        """Points for the Projector tab: ``mat`` (N, D) written as ``<step>/<tag>/tensors.tsv``, optional
        labels (``metadata``, N of them, or rows under ``metadata_header``) as ``metadata.tsv``, optional
        images (``label_img``, N C H W) as a sprite sheet, all listed in ``projector_config.pbtxt``."""
        from google.protobuf import text_format
        from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo, ProjectorConfig

        mat = S.make_np(mat)
        step = str(0 if global_step is None else global_step).zfill(5)
        # '%', '/' and '\\' in the tag would make extra directories: escape them as %xx
        subdir = f"{step}/" + "".join(f"%{ord(c):02x}" if c in "%/\\" else c for c in tag)
        log_dir = self._get_file_writer().get_logdir()
        save_path = os.path.join(log_dir, subdir)
        if os.path.isdir(save_path):
            print("warning: Embedding dir exists, did you set global_step for add_embedding()?")
        elif os.path.exists(save_path):
            raise NotADirectoryError(f"Path: `{save_path}` exists, but is a file. Cannot proceed.")
        os.makedirs(save_path, exist_ok=True)
        info = EmbeddingInfo(tensor_name=f"{tag}:{step}", tensor_path=subdir + "/tensors.tsv")
        if metadata is not None:
            if mat.shape[0] != len(metadata):
                raise AssertionError("#labels should equal with #data points")
            if metadata_header:
                if len(metadata_header) != len(metadata[0]):
                    raise AssertionError("len of header must be equal to the number of columns in metadata")
                lines = ["\t".join(str(e) for e in row) for row in [metadata_header] + list(metadata)]
            else:
                lines = [str(x) for x in metadata]
            _write(save_path, "metadata.tsv", "\n".join(lines) + "\n")
            info.metadata_path = subdir + "/metadata.tsv"
        if label_img is not None:
            images = S.make_np(label_img)
            if mat.shape[0] != images.shape[0]:
                raise AssertionError("#images should equal with #data points")
            _write(save_path, "sprite.png", _sprite(images))
            info.sprite.image_path = subdir + "/sprite.png"
            info.sprite.single_image_dim.extend([images.shape[3], images.shape[2]])
        if mat.ndim != 2:
            raise AssertionError("mat should be 2D, where mat.size(0) is the number of data points")
        _write(save_path, "tensors.tsv", "".join("\t".join(str(v.item()) for v in row) + "\n" for row in mat))
        # one config for the whole directory, listing every embedding written so far
        if not hasattr(self, "_projector_config"):
            self._projector_config = ProjectorConfig()
        self._projector_config.embeddings.extend([info])
        _write(log_dir, "projector_config.pbtxt", text_format.MessageToString(self._projector_config))

    # --- what pedatorch does not log -------------------------------------------------------------------

    add_tensor = _unsupported("add_tensor")
    add_image_with_boxes = _unsupported("add_image_with_boxes")
    add_video = _unsupported("add_video")
    add_audio = _unsupported("add_audio")
    add_onnx_graph = _unsupported("add_onnx_graph")
    add_pr_curve = _unsupported("add_pr_curve")
    add_pr_curve_raw = _unsupported("add_pr_curve_raw")
    add_custom_scalars = _unsupported("add_custom_scalars")
    add_custom_scalars_multilinechart = _unsupported("add_custom_scalars_multilinechart")
    add_custom_scalars_marginchart = _unsupported("add_custom_scalars_marginchart")
    add_mesh = _unsupported("add_mesh")

    # --- the end ---------------------------------------------------------------------------------------

    def flush(self):
        """Write every pending event to disk now."""
        if self.all_writers is not None:
            for writer in self.all_writers.values():
                writer.flush()

    def close(self):
        """Flush and close every event file (a second close does nothing; a later add_* opens a new file)."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()


def _write(directory, name, content):
    with open(os.path.join(directory, name), "wb") as f:
        f.write(content.encode("utf-8") if isinstance(content, str) else content)


def _sprite(images):
    """The Projector's sprite sheet: the N images (N, C, H, W; floats in 0..1) tiled into a square PNG,
    ceil(sqrt(N)) a row, black below the last row."""
    per_row = math.ceil(images.shape[0] ** 0.5)
    grid = S.make_grid(images, ncols=per_row).transpose(1, 2, 0)          # (rows*H, per_row*W, 3)
    side = grid.shape[1]
    grid = np.pad(grid, ((0, side - grid.shape[0]), (0, 0), (0, 0)))   # a square, as the Projector expects
    return S.encode_png((grid * 255).clip(0, 255).astype(np.uint8))
