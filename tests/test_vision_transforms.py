"""pedatorch.vision.transforms: torchvision's transforms on PIL images and tensors.

torchvision cannot be installed beside this torch build, so results are checked against hand-computed values,
Pillow's own operations and torch's tensor ops; the random draws against the torch calls torchvision makes
(``torch.rand(1) < p``, ``torch.randint(0, n, size=(1,))``, ``torch.empty(1).uniform_(a, b)``, ...).
"""
import colorsys
import math
import subprocess
import sys

import numpy as np
import pytest

import pedatorch as pt
import pedatorch.vision.transforms as T
import pedatorch.vision.transforms.functional as F
from pedatorch.autograd import gradcheck
from pedatorch.vision.utils import make_grid, save_image

RNG = np.random.default_rng(0)
ARR = RNG.integers(0, 256, (23, 31, 3), dtype=np.uint8)        # H, W, C


def chw(arr=ARR):
    return pt.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))


def pil_image(arr=ARR, mode=None):
    Image = pytest.importorskip("PIL.Image")
    return Image.fromarray(arr) if mode is None else Image.fromarray(arr).convert(mode)


def as_np(x):
    return np.asarray(x) if not isinstance(x, pt.Tensor) else x.detach().numpy()


# ====================================================================== the package

def test_import_pedatorch_does_not_load_vision_and_vision_does_not_load_pil():
    code = ("import sys, pedatorch; assert 'pedatorch.vision' not in sys.modules; "
            "import pedatorch.vision; assert 'PIL' not in sys.modules and 'sklearn' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_missing_pillow_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)        # `import PIL` now fails as if it were not installed
    from pedatorch.vision._image import pil
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'pedatorch\[deploy\]'"):
        pil()
    # a tensor-only pipeline needs no Pillow
    assert T.Compose([T.CenterCrop(4), T.RandomHorizontalFlip()])(chw()).shape == (3, 4, 4)


def test_reprs_are_torchvisions():
    cases = [
        (T.Compose([T.ToTensor(), T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))]),
         "Compose(\n    ToTensor()\n    Normalize(mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225))\n)"),
        (T.Resize(32), "Resize(size=32, interpolation=bilinear, max_size=None, antialias=True)"),
        (T.CenterCrop(10), "CenterCrop(size=(10, 10))"),
        (T.RandomCrop(32, padding=4), "RandomCrop(size=(32, 32), padding=4)"),
        (T.RandomResizedCrop(224), "RandomResizedCrop(size=(224, 224), scale=(0.08, 1.0), ratio=(0.75, 1.3333), "
                                   "interpolation=bilinear, antialias=True)"),
        (T.RandomHorizontalFlip(), "RandomHorizontalFlip(p=0.5)"),
        (T.RandomRotation(10), "RandomRotation(degrees=[-10.0, 10.0], interpolation=nearest, expand=False, fill=0)"),
        (T.RandomAffine(15, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5,
                        interpolation=T.InterpolationMode.BILINEAR, fill=1),
         "RandomAffine(degrees=[-15.0, 15.0], translate=(0.1, 0.1), scale=(0.9, 1.1), shear=[-5.0, 5.0], "
         "interpolation=bilinear, fill=1)"),
        (T.ColorJitter(0.4, 0.4, 0.4, 0.1),
         "ColorJitter(brightness=(0.6, 1.4), contrast=(0.6, 1.4), saturation=(0.6, 1.4), hue=(-0.1, 0.1))"),
        (T.GaussianBlur(3), "GaussianBlur(kernel_size=(3, 3), sigma=(0.1, 2.0))"),
        (T.RandomErasing(), "RandomErasing(p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False)"),
        (T.RandomApply([T.Grayscale()], p=0.3), "RandomApply(\n    p=0.3\n    Grayscale(num_output_channels=1)\n)"),
        (T.RandomChoice([T.Grayscale(), T.CenterCrop(3)]),
         "RandomChoice(\n    Grayscale(num_output_channels=1)\n    CenterCrop(size=(3, 3))\n)(p=None)"),
        (T.Pad(2), "Pad(padding=2, fill=0, padding_mode=constant)"),
        (T.ToPILImage("RGB"), "ToPILImage(mode=RGB)"),
        (T.ConvertImageDtype(pt.float32), "ConvertImageDtype()"),
        (T.Lambda(lambda x: x), "Lambda()"),
    ]
    for t, expected in cases:
        assert repr(t) == expected


# ====================================================================== conversions

def test_to_tensor_of_pil_and_ndarray_is_chw_in_0_1():
    expected = ARR.transpose(2, 0, 1).astype(np.float32) / 255
    for src in (pil_image(), ARR):
        out = F.to_tensor(src)
        assert out.dtype == pt.float32 and out.shape == (3, 23, 31)
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    grey = F.to_tensor(ARR[:, :, 0])                  # 2-D ndarray: one channel
    assert grey.shape == (1, 23, 31)
    kept = F.to_tensor(ARR.astype(np.float64))        # not uint8: values kept
    assert kept.dtype == pt.float64 and kept.max().item() == ARR.max()


def test_to_tensor_of_other_pil_modes():
    Image = pytest.importorskip("PIL.Image")
    img = Image.fromarray(ARR[:, :, 0])
    binary = F.to_tensor(img.convert("1"))
    assert set(np.unique(binary.numpy())) <= {0.0, 1.0}
    as_int = F.to_tensor(img.convert("I"))            # 32-bit modes keep their values and type
    assert as_int.dtype == pt.int32 and np.array_equal(as_int.numpy()[0], ARR[:, :, 0])
    as_float = F.to_tensor(img.convert("F"))
    assert as_float.dtype == pt.float32 and np.array_equal(as_float.numpy()[0], ARR[:, :, 0])
    rgba = F.to_tensor(Image.fromarray(ARR).convert("RGBA"))
    assert rgba.shape == (4, 23, 31)


def test_pil_to_tensor_keeps_uint8_and_to_pil_image_round_trips():
    img = pil_image()
    t = F.pil_to_tensor(img)
    assert t.dtype == pt.uint8 and np.array_equal(t.numpy(), ARR.transpose(2, 0, 1))
    back = F.to_pil_image(t)
    assert back.mode == "RGB" and np.array_equal(np.asarray(back), ARR)
    back_f = T.ToPILImage()(t.float() / 255)          # floats are scaled by 255 (and truncated)
    assert np.abs(np.asarray(back_f).astype(int) - ARR).max() <= 1
    assert F.to_pil_image(t[:1]).mode == "L"
    assert F.to_pil_image(t[:1].float(), mode="F").mode == "F"
    assert F.to_pil_image(pt.cat([t, t[:1]])).mode == "RGBA"
    with pytest.raises(ValueError, match="Only modes"):
        F.to_pil_image(t, mode="RGBA")
    with pytest.raises(TypeError, match="pic should be Tensor or ndarray"):
        F.to_pil_image([1, 2])
    with pytest.raises(TypeError, match="pic should be PIL Image or ndarray"):
        F.to_tensor([1, 2])


def test_convert_image_dtype():
    u8 = pt.tensor([[[0, 1, 128, 255]]], dtype=pt.uint8)
    np.testing.assert_allclose(F.convert_image_dtype(u8).numpy(), [[[0, 1 / 255, 128 / 255, 1]]], rtol=1e-6)
    f = pt.tensor([[[0.0, 0.5, 0.999, 1.0]]])
    assert F.convert_image_dtype(f, pt.uint8).tolist() == [[[0, 127, 255, 255]]]    # x * 255.999, truncated
    assert F.convert_image_dtype(u8, pt.int16).tolist() == [[[0, 128, 32768 // 2, 255 * 128]]]
    assert F.convert_image_dtype(pt.tensor([[[32767]]], dtype=pt.int16), pt.uint8).tolist() == [[[255]]]
    with pytest.raises(RuntimeError, match="cannot be performed safely"):
        F.convert_image_dtype(f, pt.int32)


def test_normalize():
    x = pt.rand(2, 3, 4, 5)
    mean, std = (0.5, 0.4, 0.3), (0.2, 0.3, 0.4)
    expected = (x.numpy() - np.array(mean, np.float32)[:, None, None]) / np.array(std, np.float32)[:, None, None]
    out = T.Normalize(mean, std)(x)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6, atol=1e-6)
    assert not np.allclose(x.numpy(), out.numpy())               # out of place by default
    y = x.clone()
    assert F.normalize(y, mean, std, inplace=True) is y
    with pytest.raises(TypeError, match="Input tensor should be a float tensor. Got torch.uint8."):
        F.normalize(chw(), mean, std)
    with pytest.raises(ValueError, match="std evaluated to zero"):
        F.normalize(x, mean, (1.0, 0.0, 1.0))


# ====================================================================== geometry

def test_resize_pil_uses_pillows_filter_and_the_shorter_side_rule():
    Image = pytest.importorskip("PIL.Image")
    img = pil_image()                                             # 31 wide, 23 high
    out = T.Resize(13)(img)
    assert out.size == (int(13 * 31 / 23), 13)
    assert np.array_equal(np.asarray(out), np.asarray(img.resize((17, 13), Image.BILINEAR)))
    out = T.Resize((7, 40), interpolation=T.InterpolationMode.BICUBIC)(img)
    assert np.array_equal(np.asarray(out), np.asarray(img.resize((40, 7), Image.BICUBIC)))
    assert T.Resize(13, max_size=15)(img).size == (15, int(15 * 13 / 17))
    assert F.resize(img, [20], interpolation=Image.NEAREST).size == (26, 20)      # PIL's integer constants too


def test_resize_tensor_is_interpolate_with_antialias():
    torch = pytest.importorskip("torch")
    x = pt.rand(2, 3, 23, 31)
    out = T.Resize(13)(x)
    ref = torch.nn.functional.interpolate(torch.from_numpy(x.numpy()), size=[13, 17], mode="bilinear",
                                          align_corners=False, antialias=True)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), atol=1e-5)
    up = T.Resize((40, 50), interpolation=T.InterpolationMode.BICUBIC)(x)
    ref = torch.nn.functional.interpolate(torch.from_numpy(x.numpy()), size=[40, 50], mode="bicubic",
                                          align_corners=False, antialias=True)
    np.testing.assert_allclose(up.numpy(), ref.numpy(), atol=1e-5)
    # uint8 images: resampled in float32, rounded back (float32 rounding may differ by one step)
    u8 = T.Resize(13)(chw())
    ref = torch.nn.functional.interpolate(torch.from_numpy(chw().numpy()).float()[None], size=[13, 17],
                                          mode="bilinear", align_corners=False, antialias=True)[0].round()
    assert u8.dtype == pt.uint8 and np.abs(u8.numpy().astype(int) - ref.numpy().astype(int)).max() <= 1
    # any number of leading dims
    many = pt.rand(2, 2, 1, 8, 8)
    assert np.allclose(T.Resize(4)(many)[1, 0].numpy(), T.Resize(4)(many[1, 0]).numpy(), atol=1e-6)


def test_crops_and_pads_tensor_and_pil():
    t, img = chw(), pil_image()
    out = T.CenterCrop(11)(t)
    top, left = int(round((23 - 11) / 2)), int(round((31 - 11) / 2))
    assert np.array_equal(out.numpy(), ARR.transpose(2, 0, 1)[:, top:top + 11, left:left + 11])
    assert np.array_equal(np.asarray(T.CenterCrop(11)(img)), ARR[top:top + 11, left:left + 11])
    big = T.CenterCrop((30, 40))(t)                                # larger than the image: zero padding
    assert big.shape == (3, 30, 40) and big[:, :3].sum() == 0
    assert np.array_equal(np.asarray(T.CenterCrop((30, 40))(img)), big.permute(1, 2, 0).numpy())
    widths = ((2, 4), (1, 3))                                       # top/bottom, left/right for padding (1, 2, 3, 4)
    for mode, np_mode in [("edge", "edge"), ("reflect", "reflect"), ("symmetric", "symmetric")]:
        expected = np.pad(ARR, widths + ((0, 0),), mode=np_mode)
        assert np.array_equal(T.Pad((1, 2, 3, 4), padding_mode=mode)(t).permute(1, 2, 0).numpy(), expected), mode
        assert np.array_equal(np.asarray(T.Pad((1, 2, 3, 4), padding_mode=mode)(img)), expected), mode
    const = T.Pad([2, 1], fill=7)(t)
    assert const.shape == (3, 25, 35) and const[0, 0, 0] == 7 and np.array_equal(const[:, 1:-1, 2:-2].numpy(),
                                                                                 t.numpy())
    assert np.array_equal(np.asarray(T.Pad([2, 1], fill=7)(img)), const.permute(1, 2, 0).numpy())
    with pytest.raises(ValueError, match="Padding mode should be either constant, edge, reflect or symmetric"):
        T.Pad(1, padding_mode="wrap")


def test_five_and_ten_crop():
    t = chw()
    tl, tr, bl, br, center = T.FiveCrop(7)(t)
    a = t.numpy()
    assert np.array_equal(tl.numpy(), a[:, :7, :7]) and np.array_equal(br.numpy(), a[:, -7:, -7:])
    assert np.array_equal(tr.numpy(), a[:, :7, -7:]) and np.array_equal(bl.numpy(), a[:, -7:, :7])
    ten = T.TenCrop(7)(t)
    assert len(ten) == 10 and np.array_equal(ten[5].numpy(), a[:, :7, ::-1][:, :, :7])
    with pytest.raises(ValueError, match="Requested crop size"):
        T.FiveCrop(30)(t)


def test_hflip_vflip_and_their_draws():
    torch = pytest.importorskip("torch")
    t, img = chw(), pil_image()
    assert np.array_equal(F.hflip(t).numpy(), t.numpy()[:, :, ::-1])
    assert np.array_equal(np.asarray(F.vflip(img)), ARR[::-1])
    pt.manual_seed(3)
    torch.manual_seed(3)
    flip = T.RandomHorizontalFlip(p=0.3)
    for _ in range(20):
        flipped = bool(torch.rand(1) < 0.3)                      # torchvision's draw
        assert np.array_equal(flip(t).numpy(), t.numpy()[:, :, ::-1] if flipped else t.numpy())


def test_random_crop_draws_as_torchvision():
    torch = pytest.importorskip("torch")
    t = chw()
    for seed in range(5):
        pt.manual_seed(seed)
        out = T.RandomCrop(9, padding=3)(t)
        torch.manual_seed(seed)
        i = torch.randint(0, 29 - 9 + 1, size=(1,)).item()
        j = torch.randint(0, 37 - 9 + 1, size=(1,)).item()
        padded = np.pad(ARR.transpose(2, 0, 1), ((0, 0), (3, 3), (3, 3)))
        assert np.array_equal(out.numpy(), padded[:, i:i + 9, j:j + 9])
    out = T.RandomCrop((30, 40), pad_if_needed=True)(t)
    assert out.shape == (3, 30, 40)
    with pytest.raises(ValueError, match=r"Required crop size \(30, 40\) is larger than input image size \(23, 31\)"):
        T.RandomCrop((30, 40))(t)


def test_random_resized_crop_draws_as_torchvision():
    torch = pytest.importorskip("torch")
    img = chw()
    for seed in range(6):
        torch.manual_seed(seed)
        log_ratio = torch.log(torch.tensor((3 / 4, 4 / 3)))       # torchvision's get_params, in torch
        expected = None
        for _ in range(10):
            target_area = 23 * 31 * torch.empty(1).uniform_(0.08, 1.0).item()
            aspect = torch.exp(torch.empty(1).uniform_(log_ratio[0], log_ratio[1])).item()
            w, h = int(round(math.sqrt(target_area * aspect))), int(round(math.sqrt(target_area / aspect)))
            if 0 < w <= 31 and 0 < h <= 23:
                expected = (torch.randint(0, 23 - h + 1, size=(1,)).item(),
                            torch.randint(0, 31 - w + 1, size=(1,)).item(), h, w)
                break
        pt.manual_seed(seed)
        assert T.RandomResizedCrop.get_params(img, (0.08, 1.0), (3 / 4, 4 / 3)) == expected
    pt.manual_seed(0)
    assert T.RandomResizedCrop((8, 12))(img).shape == (3, 8, 12)
    assert T.RandomResizedCrop(8)(pil_image()).size == (8, 8)


def test_rotate_and_affine():
    Image = pytest.importorskip("PIL.Image")
    x = pt.arange(2 * 16.).reshape(2, 4, 4)
    assert np.array_equal(F.rotate(x, 90.0).numpy(), np.rot90(x.numpy(), 1, (-2, -1)))   # counter-clockwise
    assert F.rotate(chw(), 45.0, expand=True).shape == (3, 39, 39)
    img = pil_image()
    out = F.rotate(img, 33.0, interpolation=T.InterpolationMode.BILINEAR, center=[3, 5], fill=[1, 2, 3])
    assert np.array_equal(np.asarray(out), np.asarray(img.rotate(33.0, Image.BILINEAR, False, [3, 5],
                                                                 fillcolor=(1, 2, 3))))
    # a pure translation by (2, 3): the image moves right 2 and down 3, zeros come in
    moved = F.affine(chw(), 0.0, [2, 3], 1.0, [0.0, 0.0])
    expected = np.zeros_like(ARR.transpose(2, 0, 1))
    expected[:, 3:, 2:] = ARR.transpose(2, 0, 1)[:, :-3, :-2]
    assert np.array_equal(moved.numpy(), expected)
    assert np.array_equal(np.asarray(F.affine(img, 0.0, [2, 3], 1.0, 0.0)), expected.transpose(1, 2, 0))
    with pytest.raises(ValueError, match="Argument scale should be positive"):
        F.affine(img, 0.0, [0, 0], 0.0, 0.0)


def test_random_rotation_and_affine_draw_as_torchvision():
    torch = pytest.importorskip("torch")
    pt.manual_seed(1)
    torch.manual_seed(1)
    assert T.RandomRotation.get_params([-30.0, 30.0]) == torch.empty(1).uniform_(-30.0, 30.0).item()
    pt.manual_seed(2)
    got = T.RandomAffine.get_params([-20.0, 20.0], (0.1, 0.2), (0.8, 1.2), [-5.0, 5.0, -3.0, 3.0], [31, 23])
    torch.manual_seed(2)
    angle = torch.empty(1).uniform_(-20.0, 20.0).item()
    tx = int(round(torch.empty(1).uniform_(-3.1, 3.1).item()))
    ty = int(round(torch.empty(1).uniform_(-4.6000000000000005, 4.6000000000000005).item()))
    scale = torch.empty(1).uniform_(0.8, 1.2).item()
    shear = (torch.empty(1).uniform_(-5.0, 5.0).item(), torch.empty(1).uniform_(-3.0, 3.0).item())
    assert got == (angle, (tx, ty), scale, shear)
    # the tensor and PIL paths turn the same way (fill per channel for tensors)
    pt.manual_seed(4)
    assert T.RandomRotation(30, fill=(1, 2, 3))(chw()).shape == (3, 23, 31)


# ====================================================================== colour

def test_grayscale():
    t = chw()
    r, g, b = [t[i].float() for i in range(3)]
    expected = (0.2989 * r + 0.587 * g + 0.114 * b).to(pt.uint8)          # truncated, as torchvision
    assert np.array_equal(T.Grayscale()(t)[0].numpy(), expected.numpy())
    three = T.Grayscale(3)(t)
    assert three.shape == (3, 23, 31) and np.array_equal(three[2].numpy(), expected.numpy())
    img = pil_image()
    assert np.array_equal(np.asarray(T.Grayscale()(img)), np.asarray(img.convert("L")))
    assert T.Grayscale(3)(img).mode == "RGB"


def test_brightness_contrast_saturation_are_blends():
    t = chw()
    x = t.float()
    np.testing.assert_array_equal(F.adjust_brightness(t, 1.3).numpy(),
                                  (1.3 * x).clamp(0, 255).to(pt.uint8).numpy())
    f = t.float() / 255
    grey_mean = F.rgb_to_grayscale(f).mean().item()
    np.testing.assert_allclose(F.adjust_contrast(f, 0.7).numpy(),
                               np.clip(0.7 * f.numpy() + 0.3 * grey_mean, 0, 1), atol=1e-6)
    grey = F.rgb_to_grayscale(f).numpy()
    np.testing.assert_allclose(F.adjust_saturation(f, 1.5).numpy(), np.clip(1.5 * f.numpy() - 0.5 * grey, 0, 1),
                               atol=1e-6)
    # PIL images go to Pillow's ImageEnhance
    ImageEnhance = pytest.importorskip("PIL.ImageEnhance")
    img = pil_image()
    assert np.array_equal(np.asarray(F.adjust_contrast(img, 0.7)), np.asarray(ImageEnhance.Contrast(img).enhance(0.7)))


def test_adjust_hue_is_a_turn_in_hsv():
    f = pt.rand(3, 5, 6)
    out = F.adjust_hue(f, 0.2)
    a = f.numpy()
    for y in range(5):
        for x in range(6):
            h, s, v = colorsys.rgb_to_hsv(*a[:, y, x])
            np.testing.assert_allclose(out.numpy()[:, y, x], colorsys.hsv_to_rgb((h + 0.2) % 1.0, s, v), atol=1e-5)
    assert F.adjust_hue(f[:1], 0.3) is not None and np.array_equal(F.adjust_hue(f[:1], 0.3).numpy(), f[:1].numpy())
    with pytest.raises(ValueError, match=r"hue_factor \(0.7\) is not in \[-0.5, 0.5\]."):
        F.adjust_hue(f, 0.7)


def test_color_jitter_draws_as_torchvision():
    torch = pytest.importorskip("torch")
    jitter = T.ColorJitter(0.4, 0.4, 0.4, 0.1)
    pt.manual_seed(5)
    order, b, c, s, h = T.ColorJitter.get_params(jitter.brightness, jitter.contrast, jitter.saturation, jitter.hue)
    torch.manual_seed(5)
    assert order.tolist() == torch.randperm(4).tolist()
    expected = [float(torch.empty(1).uniform_(lo, hi)) for lo, hi in [(0.6, 1.4), (0.6, 1.4), (0.6, 1.4), (-0.1, 0.1)]]
    assert [b, c, s, h] == expected
    # applying: the four adjustments in the drawn order
    f = pt.rand(3, 6, 7)
    pt.manual_seed(5)
    out = jitter(f)
    adjust = {0: (F.adjust_brightness, b), 1: (F.adjust_contrast, c), 2: (F.adjust_saturation, s), 3: (F.adjust_hue, h)}
    manual = f
    for k in order.tolist():
        manual = adjust[k][0](manual, adjust[k][1])
    assert np.array_equal(out.numpy(), manual.numpy())
    assert T.ColorJitter().brightness is None
    with pytest.raises(ValueError, match="If brightness is a single number, it must be non negative."):
        T.ColorJitter(-1)


def test_gaussian_blur_is_torchs_conv_with_the_gaussian_kernel():
    torch = pytest.importorskip("torch")
    x = pt.rand(3, 9, 11)
    out = F.gaussian_blur(x, [5, 3], [1.2, 0.7])

    def kernel1d(k, sigma):
        t = torch.linspace(-(k - 1) / 2, (k - 1) / 2, k)
        pdf = torch.exp(-0.5 * (t / sigma) ** 2)
        return pdf / pdf.sum()
    k2d = kernel1d(3, 0.7)[:, None] @ kernel1d(5, 1.2)[None, :]      # (ky, kx)
    xt = torch.nn.functional.pad(torch.from_numpy(x.numpy())[None], [2, 2, 1, 1], mode="reflect")
    ref = torch.nn.functional.conv2d(xt, k2d.expand(3, 1, 3, 5), groups=3)[0]
    np.testing.assert_allclose(out.numpy(), ref.numpy(), atol=1e-6)
    pt.manual_seed(0)
    torch.manual_seed(0)
    assert T.GaussianBlur.get_params(0.1, 2.0) == torch.empty(1).uniform_(0.1, 2.0).item()
    blurred = F.gaussian_blur(pil_image(), 3)
    assert blurred.mode == "RGB" and blurred.size == (31, 23)
    with pytest.raises(ValueError, match="Kernel size value should be an odd and positive number."):
        T.GaussianBlur(4)


def test_random_erasing_draws_as_torchvision():
    torch = pytest.importorskip("torch")
    img = pt.rand(3, 20, 24)
    pt.manual_seed(7)
    out = T.RandomErasing(p=1.0, value=(0.1, 0.2, 0.3))(img)
    torch.manual_seed(7)
    torch.rand(1)                                                    # the p draw
    log_ratio = torch.log(torch.tensor((0.3, 3.3)))
    while True:
        area = 480 * torch.empty(1).uniform_(0.02, 0.33).item()
        aspect = torch.exp(torch.empty(1).uniform_(log_ratio[0], log_ratio[1])).item()
        h, w = int(round(math.sqrt(area * aspect))), int(round(math.sqrt(area / aspect)))
        if h < 20 and w < 24:
            break
    i = torch.randint(0, 20 - h + 1, size=(1,)).item()
    j = torch.randint(0, 24 - w + 1, size=(1,)).item()
    expected = img.numpy().copy()
    expected[:, i:i + h, j:j + w] = np.array([0.1, 0.2, 0.3], np.float32)[:, None, None]
    np.testing.assert_array_equal(out.numpy(), expected)
    assert not np.array_equal(img.numpy(), out.numpy())
    with pytest.raises(ValueError, match="If value is str, it should be 'random'"):
        T.RandomErasing(value="noise")


def test_random_containers_are_repeatable():
    x = chw()
    choice = T.RandomChoice([T.CenterCrop(3), T.CenterCrop(5)], p=[0.0, 1.0])
    assert all(choice(x).shape == (3, 5, 5) for _ in range(5))
    order = T.RandomOrder([T.Lambda(lambda s: s + "a"), T.Lambda(lambda s: s + "b"), T.Lambda(lambda s: s + "c")])
    pt.manual_seed(0)
    first = [order("") for _ in range(6)]
    pt.manual_seed(0)
    assert [order("") for _ in range(6)] == first and len(set(first)) > 1
    applied = T.RandomApply([T.Lambda(lambda s: s + 1)], p=0.5)
    pt.manual_seed(1)
    draws = [applied(0) for _ in range(20)]
    assert set(draws) == {0, 1}
    with pytest.raises(TypeError, match="Argument lambd should be callable, got 'int'"):
        T.Lambda(3)


def test_batched_tensors_get_the_same_transformation_per_image():
    batch = pt.rand(4, 3, 12, 14)
    for t in (T.Resize(6), T.CenterCrop(5), T.Pad(2, padding_mode="reflect"), T.Grayscale(),
              T.Normalize((0.5,) * 3, (0.2,) * 3)):
        out = t(batch)
        assert np.allclose(out[2].numpy(), t(batch[2]).numpy(), atol=1e-6)
    rotated = F.rotate(batch, 30.0, interpolation=T.InterpolationMode.BILINEAR)
    assert np.allclose(rotated[1].numpy(), F.rotate(batch[1], 30.0, interpolation=T.InterpolationMode.BILINEAR).numpy(),
                       atol=1e-6)


def test_misc_color_ops():
    t = chw()
    assert np.array_equal(F.invert(t).numpy(), 255 - ARR.transpose(2, 0, 1))
    assert np.array_equal(F.posterize(t, 3).numpy(), ARR.transpose(2, 0, 1) & 0b11100000)
    assert np.array_equal(F.solarize(t, 128).numpy(), np.where(ARR >= 128, 255 - ARR, ARR).transpose(2, 0, 1))
    img = pil_image()
    ImageOps = pytest.importorskip("PIL.ImageOps")
    assert np.array_equal(F.equalize(t).permute(1, 2, 0).numpy(), np.asarray(ImageOps.equalize(img)))
    assert np.array_equal(np.asarray(F.autocontrast(img)), np.asarray(ImageOps.autocontrast(img)))


# ====================================================================== gradients

def test_tensor_transforms_are_differentiable():
    x = pt.rand(1, 3, 6, 7, dtype=pt.float64, requires_grad=True)
    assert gradcheck(lambda a: F.normalize(a, (0.5, 0.4, 0.3), (0.2, 0.3, 0.4)), (x,))
    assert gradcheck(lambda a: F.resize(a, [4, 5]), (x,))
    assert gradcheck(lambda a: F.gaussian_blur(a, [3, 3], [0.8, 0.8]), (x,))
    assert gradcheck(lambda a: F.rotate(a, 20.0, interpolation=T.InterpolationMode.BILINEAR, fill=[0.5] * 3), (x,))
    inside = (pt.rand(1, 3, 4, 4, dtype=pt.float64) * 0.5 + 0.25).requires_grad_()
    assert gradcheck(lambda a: F.adjust_brightness(a, 1.2), (inside,))


# ====================================================================== pictures

def test_make_grid_and_save_image(tmp_path):
    batch = pt.stack([pt.full((1, 2, 3), float(k)) for k in range(5)])
    grid = make_grid(batch, nrow=3, padding=1, pad_value=-1.0)
    assert grid.shape == (3, 2 * 3 + 1, 3 * 4 + 1)                    # two rows of three, one channel -> three
    assert grid[0, 1, 1].item() == 0.0 and grid[0, 1, 5].item() == 1.0 and grid[0, 4, 1].item() == 3.0
    assert grid[0, 0, 0].item() == -1.0 and grid[0, 4, 9].item() == -1.0  # padding, and the empty sixth place
    norm = make_grid(batch, normalize=True)
    assert norm.min().item() == 0.0 and norm.max().item() == 1.0
    Image = pytest.importorskip("PIL.Image")
    path = tmp_path / "grid.png"
    save_image(pt.rand(4, 3, 5, 5), path, nrow=2)
    with Image.open(path) as saved:
        assert saved.size == (2 * 7 + 2, 2 * 7 + 2) and saved.mode == "RGB"


def test_tensor_transforms_run_on_each_device(device):
    """The tensor kernels allocate on the image's device (the CUDA run uses the stand-in backend without a GPU)."""
    x = pt.rand(2, 3, 10, 12)
    u8 = chw()[:, :10, :12].contiguous()
    cases = [(lambda a: F.resize(a, [5, 7]), x), (lambda a: F.rotate(a, 30.0, expand=True, fill=[1.0, 0.0, 0.0]), x),
             (lambda a: F.affine(a, 10.0, [1, 2], 1.1, [3.0, 1.0], fill=[0.5] * 3), x),
             (lambda a: F.perspective(a, [[0, 0], [11, 0], [11, 9], [0, 9]], [[1, 1], [10, 0], [11, 8], [0, 9]]), x),
             (lambda a: F.gaussian_blur(a, 3), x), (lambda a: F.adjust_hue(a, 0.2), x),
             (lambda a: F.adjust_sharpness(a, 1.5), u8), (lambda a: F.equalize(a), u8),
             (lambda a: F.pad(a, [1, 2], padding_mode="symmetric"), x), (lambda a: F.autocontrast(a), u8),
             (lambda a: F.normalize(a, (0.5, 0.5, 0.5), (0.2, 0.2, 0.2)), x), (lambda a: F.erase(a, 1, 1, 3, 3, 0), x)]
    for op, img in cases:
        out = op(img.to(device))
        assert out.device.type == device
        np.testing.assert_allclose(out.cpu().numpy(), op(img).numpy(), atol=1e-5)
