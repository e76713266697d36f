"""Values -> TensorBoard ``Summary`` protocol buffers (what ``torch.utils.tensorboard.summary`` builds).

TensorBoard reads event files of ``Event`` records; a logged value is an ``Event`` holding a ``Summary``,
which holds tagged ``Summary.Value``s: a ``simple_value`` for a scalar, a ``HistogramProto``, an
``Image`` (PNG bytes), or a tensor with plugin metadata (text, hparams). The protos are tensorboard's own
(``tensorboard.compat.proto``), so the files are the ones PyTorch writes.

Everything here works on host numpy arrays: a logged value is copied off its device first (``make_np``).
"""
import io
import math
import numbers
import struct
import zlib

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

from ... import _dtype
from ..._tensor import Tensor
from ...backend import host_from_bytes, is_array, to_host


def make_np(x):
    """A host numpy array with the values of ``x``: a Tensor (any device), an array, or a number
    (a one-element array, as PyTorch's make_np gives)."""
    if isinstance(x, Tensor):
        if x.dtype == _dtype.bfloat16:   # numpy has no bfloat16 of its own; PyTorch logs it as float16 too
            x = x.to(_dtype.float16)
        return x.detach().cpu().numpy()
    if is_array(x):
        return to_host(x)
    if isinstance(x, (numbers.Number, np.generic)) and not isinstance(x, complex):
        # a numpy scalar reshaped is a one-element array (float -> float64, int -> int64, as np.array([x]))
        scalar = x if isinstance(x, np.generic) else (np.float64(x) if isinstance(x, float) else np.int64(x))
        return scalar.reshape(1)
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def _plugin_metadata(name, content=b""):
    return SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=name, content=content))


# --- scalars -------------------------------------------------------------------------------------------

def scalar(tag, value, new_style=False, double_precision=False):
    """One number. Old style (the default) is the ``simple_value`` field (a float32 on disk); new style is a
    tensor the ``scalars`` plugin reads, float32 or, with ``double_precision``, float64."""
    value = make_np(value).squeeze()
    if value.ndim != 0:
        raise AssertionError(f"Tensor should contain one element (0 dimensions). Was given size: {value.size} "
                             f"and {value.ndim} dimensions.")
    value = float(value)
    if not new_style:
        return Summary(value=[Summary.Value(tag=tag, simple_value=value)])
    proto = (TensorProto(double_val=[value], dtype="DT_DOUBLE") if double_precision
             else TensorProto(float_val=[value], dtype="DT_FLOAT"))
    return Summary(value=[Summary.Value(tag=tag, tensor=proto, metadata=_plugin_metadata("scalars"))])


# --- histograms ----------------------------------------------------------------------------------------

def tensorflow_bins():
    """TensorFlow's default bucket edges (``bins='tensorflow'``): 0 and +-1e-12 growing by 10% up to 1e20,
    fine near zero and coarse far away, so one set of edges suits weights of any scale."""
    edges, v = [], 1e-12
    while v < 1e20:
        edges.append(v)
        v *= 1.1
    return [-e for e in reversed(edges)] + [0] + edges


def histogram(tag, values, bins, max_bins=None):
    """A ``HistogramProto`` of ``values`` counted into numpy's ``bins`` (edges, a count, or a rule name)."""
    values = make_np(values).astype(float).reshape(-1)
    if values.size == 0:
        raise ValueError("The input has no element.")
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        # merge runs of `step` neighbouring buckets (zero-padding the last run) to have at most max_bins
        step = len(counts) // max_bins
        if len(counts) % step:
            counts = np.pad(counts, (0, step - len(counts) % step))
        counts = counts.reshape(-1, step).sum(axis=-1)
        limits = np.concatenate([limits[:-1:step], limits[-1:]])
    # Keep only the buckets from the first to the last non-empty one. TensorBoard stores each bucket's
    # right edge only, so the bucket just left of the first non-empty one is kept (empty) for its right
    # edge, the left edge of the data; when there is none, an empty bucket is made up.
    nonempty = np.flatnonzero(counts)
    if nonempty.size == 0:
        raise ValueError("The histogram is empty: no value falls inside the bins.")
    start, end = int(nonempty[0]), int(nonempty[-1]) + 1
    counts = counts[start - 1:end] if start > 0 else np.concatenate([[0], counts[:end]])
    limits = limits[start:end + 1]
    return Summary(value=[Summary.Value(tag=tag, histo=HistogramProto(
        min=values.min(), max=values.max(), num=len(values), sum=values.sum(), sum_squares=values.dot(values),
        bucket_limit=limits.tolist(), bucket=counts.tolist()))])


def histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts):
    return Summary(value=[Summary.Value(tag=tag, histo=HistogramProto(
        min=min, max=max, num=num, sum=sum, sum_squares=sum_squares,
        bucket_limit=list(bucket_limits), bucket=list(bucket_counts)))])


# --- images --------------------------------------------------------------------------------------------

def make_grid(images, ncols=8):
    """N images (N, C, H, W), C 1 or 3, tiled row by row into one (3, rows*H, cols*W) image, up to ``ncols``
    a row; the cells left over stay black."""
    if images.shape[1] == 1:
        images = np.concatenate([images] * 3, axis=1)
    if images.ndim != 4 or images.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    n, c, h, w = images.shape
    ncols = min(n, ncols)
    nrows = math.ceil(n / ncols)
    images = np.pad(images, ((0, nrows * ncols - n), (0, 0), (0, 0), (0, 0)))
    # (rows, cols, C, H, W) -> (C, rows, H, cols, W): image (r, c)'s pixel (y, x) lands at (r*H + y, c*W + x)
    return images.reshape(nrows, ncols, c, h, w).transpose(2, 0, 3, 1, 4).reshape(c, nrows * h, ncols * w)


def to_hwc(img, dataformats):
    """``img`` laid out as ``dataformats`` (NCHW, CHW, HWC, HW... in any order) -> (H, W, C), C 3 or 4:
    a batch becomes a grid, a grey image three equal channels."""
    if len(set(dataformats)) != len(dataformats):
        raise AssertionError(f"You can not use the same dimension shorthand twice. input_format: {dataformats}")
    if img.ndim != len(dataformats):
        raise AssertionError(f"size of input tensor and input format are different. tensor shape: {img.shape}, "
                             f"input_format: {dataformats}")
    dataformats = dataformats.upper()
    order = [dataformats.find(d) for d in {4: "NCHW", 3: "HWC", 2: "HW"}[len(dataformats)]]
    img = img.transpose(order)
    if img.ndim == 4:
        return make_grid(img).transpose(1, 2, 0)
    if img.ndim == 2:
        img = img[:, :, None]
    return np.concatenate([img] * 3, axis=2) if img.shape[2] == 1 else img


def encode_png(hwc):
    """PNG bytes of a uint8 (H, W, C) image (C 3: RGB, 4: RGBA). Pillow encodes it when installed; without
    it, the smallest valid PNG: a header chunk, the rows zlib-compressed (each row led by filter byte 0,
    "none"), and an end chunk, each chunk framed as length, type, data, CRC."""
    try:
        from PIL import Image
    except ImportError:
        pass
    else:
        out = io.BytesIO()
        Image.fromarray(hwc).save(out, format="PNG")
        return out.getvalue()

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    height, width, channels = hwc.shape
    color_type = {1: 0, 2: 4, 3: 2, 4: 6}[channels]   # grey, grey+alpha, RGB, RGBA
    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)   # 8 bits a sample, no interlace
    rows = b"".join(b"\x00" + row.tobytes() for row in hwc)   # tobytes: C order, whatever the strides
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def to_uint8(img):
    """Pixels as uint8: uint8 images are taken as 0..255, anything else as 0..1 (scaled by 255, clipped,
    truncated like PyTorch's astype)."""
    scale = 1 if img.dtype == np.uint8 else 255
    return (img.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)


def image(tag, img, dataformats="NCHW"):
    hwc = to_uint8(to_hwc(make_np(img), dataformats))
    height, width, channels = hwc.shape
    proto = Summary.Image(height=height, width=width, colorspace=channels, encoded_image_string=encode_png(hwc))
    return Summary(value=[Summary.Value(tag=tag, image=proto)])


def figure_to_image(figures, close=True):
    """A matplotlib figure rendered to a (3, H, W) uint8 array (a list of figures: (N, 3, H, W))."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    def render(figure):
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        width, height = canvas.get_width_height()
        rgba = host_from_bytes(bytes(canvas.buffer_rgba()), np.uint8, (height, width, 4))
        if close:
            plt.close(figure)
        return rgba[:, :, :3].transpose(2, 0, 1)
    return np.stack([render(f) for f in figures]) if isinstance(figures, list) else render(figures)


# --- text and hyperparameters --------------------------------------------------------------------------

def text(tag, text_string):
    """A string for the text plugin (which renders it as markdown), under ``tag + '/text_summary'``."""
    from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData
    proto = TensorProto(dtype="DT_STRING", string_val=[text_string.encode("utf_8")],
                        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    metadata = _plugin_metadata("text", TextPluginData(version=0).SerializeToString())
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=metadata, tensor=proto)])


def hparams(hparam_dict, metric_dict, hparam_domain_discrete=None):
    """The three summaries the hparams plugin reads: the experiment (which hyperparameters and metrics there
    are), the session start (this run's hyperparameter values) and the session end (it succeeded). The
    metric values themselves are plain scalars, written by the caller."""
    from google.protobuf import struct_pb2
    from tensorboard.plugins.hparams import api_pb2, metadata, plugin_data_pb2

    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in domains.items():
        if k not in hparam_dict or not isinstance(v, list) or not all(isinstance(d, type(hparam_dict[k])) for d in v):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of same type as hparam_dict[{k}].")

    start = plugin_data_pb2.SessionStartInfo()
    infos = []
    for k, v in hparam_dict.items():
        if v is None:
            continue
        if isinstance(v, Tensor):
            v = float(make_np(v).reshape(-1)[0])
        # bool is an int, so True logs as the number 1.0, as in PyTorch (its bool branch comes after the numbers)
        if isinstance(v, (int, float)):
            field, kind, data_type = "number_value", "number_value", "DATA_TYPE_FLOAT64"
        elif isinstance(v, str):
            field, kind, data_type = "string_value", "string_value", "DATA_TYPE_STRING"
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        setattr(start.hparams[k], field, v)
        domain = (struct_pb2.ListValue(values=[struct_pb2.Value(**{kind: d}) for d in domains[k]])
                  if k in domains else None)
        infos.append(api_pb2.HParamInfo(name=k, type=api_pb2.DataType.Value(data_type), domain_discrete=domain))

    def summary(tag, **content):
        data = plugin_data_pb2.HParamsPluginData(version=metadata.PLUGIN_DATA_VERSION, **content)
        return Summary(value=[Summary.Value(
            tag=tag, metadata=_plugin_metadata(metadata.PLUGIN_NAME, data.SerializeToString()))])

    experiment = api_pb2.Experiment(hparam_infos=infos,
                                    metric_infos=[api_pb2.MetricInfo(name=api_pb2.MetricName(tag=k)) for k in metric_dict])
    end = plugin_data_pb2.SessionEndInfo(status=api_pb2.Status.Value("STATUS_SUCCESS"))
    return (summary(metadata.EXPERIMENT_TAG, experiment=experiment),
            summary(metadata.SESSION_START_INFO_TAG, session_start_info=start),
            summary(metadata.SESSION_END_INFO_TAG, session_end_info=end))
