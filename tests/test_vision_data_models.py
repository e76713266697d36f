"""pedatorch.vision.datasets (on small files the tests write) and pedatorch.vision.models (against reference
architectures written with torch.nn here, since torchvision is not installed: torchvision's state_dict layout,
loaded with strict=True, must give torch's outputs)."""
import gzip
import os
import pickle
import struct

import numpy as np
import pytest

import pedatorch as pt
import pedatorch.vision.datasets as D
import pedatorch.vision.models as M
import pedatorch.vision.transforms as T
from pedatorch.utils.data import DataLoader

RNG = np.random.default_rng(1)


# ====================================================================== MNIST

def write_idx(path, arr, gz=False):
    """An IDX file: 0 0 <type code> <ndim>, big-endian sizes, big-endian values."""
    code = {np.dtype(np.uint8): 8, np.dtype(">i2"): 11}[arr.dtype]
    data = bytes([0, 0, code, arr.ndim]) + b"".join(struct.pack(">I", s) for s in arr.shape) + arr.tobytes()
    with (gzip.open(path + ".gz", "wb") if gz else open(path, "wb")) as f:
        f.write(data)


def make_mnist(root, name="MNIST", gz=False, n_train=6, n_test=3):
    raw = os.path.join(root, name, "raw")
    os.makedirs(raw, exist_ok=True)
    files = {}
    for split, n in [("train", n_train), ("t10k", n_test)]:
        images = RNG.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        labels = RNG.integers(0, 10, (n,), dtype=np.uint8)
        write_idx(os.path.join(raw, f"{split}-images-idx3-ubyte"), images, gz)
        write_idx(os.path.join(raw, f"{split}-labels-idx1-ubyte"), labels, gz)
        files[split] = (images, labels)
    return files


@pytest.mark.parametrize("gz", [False, True])
def test_mnist_reads_idx_files(tmp_path, gz):
    pytest.importorskip("PIL")
    files = make_mnist(str(tmp_path), gz=gz)
    train = D.MNIST(str(tmp_path))
    assert len(train) == 6 and train.data.dtype == pt.uint8 and train.targets.dtype == pt.int64
    img, target = train[2]
    assert img.mode == "L" and img.size == (28, 28)
    assert np.array_equal(np.asarray(img), files["train"][0][2]) and target == int(files["train"][1][2])
    test = D.MNIST(str(tmp_path), train=False, transform=T.ToTensor(), target_transform=lambda y: y + 100)
    x, y = test[1]
    assert x.shape == (1, 28, 28) and x.dtype == pt.float32 and y == int(files["t10k"][1][1]) + 100
    np.testing.assert_allclose(x.numpy()[0], files["t10k"][0][1] / 255, rtol=1e-6)
    assert repr(train) == f"Dataset MNIST\n    Number of datapoints: 6\n    Root location: {tmp_path}\n    Split: Train"
    assert train.class_to_idx["3 - three"] == 3


def test_mnist_with_a_dataloader_and_fashion_mnist(tmp_path):
    pytest.importorskip("PIL")
    make_mnist(str(tmp_path), "FashionMNIST", n_train=10)
    ds = D.FashionMNIST(str(tmp_path), transform=T.Compose([T.ToTensor(), T.Normalize((0.5,), (0.5,))]))
    x, y = next(iter(DataLoader(ds, batch_size=4, shuffle=True)))
    assert x.shape == (4, 1, 28, 28) and y.dtype == pt.int64 and x.min().item() >= -1.0
    assert ds.classes[9] == "Ankle boot"


def test_mnist_missing_files_and_offline_download(tmp_path):
    with pytest.raises(RuntimeError, match="^Dataset not found. You can use download=True to download it$"):
        D.MNIST(str(tmp_path))

    class NoNetworkMNIST(D.MNIST):       # a mirror that cannot answer, without touching the network
        mirrors = [(tmp_path / "nowhere").as_uri() + "/"]
    with pytest.raises(RuntimeError) as info:
        NoNetworkMNIST(str(tmp_path), download=True)
    message = str(info.value)
    assert "\n" not in message and "train-images-idx3-ubyte.gz" in message and "put it in" in message


def test_mnist_download_from_a_local_mirror(tmp_path):
    pytest.importorskip("PIL")
    mirror = tmp_path / "mirror"
    files = make_mnist(str(mirror), gz=True)
    gz_folder = mirror / "MNIST" / "raw"

    class LocalMNIST(D.MNIST):               # a file:// mirror: the download and unpacking code runs offline
        mirrors = [(tmp_path / "nowhere").as_uri() + "/", gz_folder.as_uri() + "/"]
        resources = [(name, None) for name, _ in D.MNIST.resources]
    ds = LocalMNIST(str(tmp_path / "data"), download=True)
    assert os.path.isfile(tmp_path / "data" / "LocalMNIST" / "raw" / "train-images-idx3-ubyte")
    assert np.array_equal(np.asarray(ds[0][0]), files["train"][0][0])


def test_idx_reader_types_and_bad_headers(tmp_path):
    values = np.array([[1, -2, 300], [32767, -32768, 0]], dtype=">i2")
    path = str(tmp_path / "shorts")
    write_idx(path, values)
    t = D.mnist.read_sn3_pascalvincent_tensor(path)
    assert t.dtype == pt.int16 and t.tolist() == values.tolist()
    (tmp_path / "junk").write_bytes(b"\x01\x02\x03\x04rest")
    with pytest.raises(RuntimeError, match="is not an IDX file"):
        D.mnist.read_sn3_pascalvincent_tensor(str(tmp_path / "junk"))
    with pytest.raises(TypeError, match="x should be of dtype torch.uint8 instead of torch.int16"):
        D.mnist.read_image_file(path)


# ====================================================================== CIFAR

def make_cifar(root, folder="cifar-10-batches-py", names=("data_batch_1", "data_batch_2", "data_batch_3",
                                                          "data_batch_4", "data_batch_5", "test_batch"),
               label_key="labels", meta=("batches.meta", "label_names")):
    path = os.path.join(root, folder)
    os.makedirs(path)
    batches = {}
    for name in names:
        batch = {"data": RNG.integers(0, 256, (3, 3072), dtype=np.uint8),
                 label_key: [int(v) for v in RNG.integers(0, 10, 3)], "batch_label": name}
        with open(os.path.join(path, name), "wb") as f:
            pickle.dump(batch, f)
        batches[name] = batch
    with open(os.path.join(path, meta[0]), "wb") as f:
        pickle.dump({meta[1]: [f"class{i}" for i in range(10)]}, f)
    return batches


def test_cifar10_reads_the_python_batches(tmp_path):
    pytest.importorskip("PIL")
    batches = make_cifar(str(tmp_path))
    train = D.CIFAR10(str(tmp_path), transform=T.PILToTensor())
    assert len(train) == 15 and train.data.shape == (15, 32, 32, 3) and train.classes[2] == "class2"
    x, y = train[4]                                   # batch 2, image 1: planes R, G, B of 32x32
    expected = batches["data_batch_2"]["data"][1].reshape(3, 32, 32)
    assert x.dtype == pt.uint8 and np.array_equal(x.numpy(), expected) and y == batches["data_batch_2"]["labels"][1]
    test = D.CIFAR10(str(tmp_path), train=False)
    assert len(test) == 3 and test[0][0].mode == "RGB" and test.class_to_idx["class9"] == 9
    with pytest.raises(RuntimeError, match="^Dataset not found or corrupted. You can use download=True to download "
                                           "it$"):
        D.CIFAR10(str(tmp_path / "elsewhere"))


def test_cifar_download_and_extract(tmp_path):
    import tarfile
    batches = make_cifar(str(tmp_path / "src"))
    archive = tmp_path / "cifar-10-python.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(tmp_path / "src" / "cifar-10-batches-py", arcname="cifar-10-batches-py")

    class LocalCIFAR10(D.CIFAR10):
        url, tgz_md5 = archive.as_uri(), None
    ds = LocalCIFAR10(str(tmp_path / "data"), train=False, download=True)
    assert ds.targets == batches["test_batch"]["labels"]

    class OfflineCIFAR10(D.CIFAR10):
        url = (tmp_path / "nowhere.tar.gz").as_uri()
    with pytest.raises(RuntimeError) as info:
        OfflineCIFAR10(str(tmp_path / "other"), download=True)
    assert "\n" not in str(info.value) and "nowhere.tar.gz" in str(info.value)


def test_cifar100_fine_labels(tmp_path):
    batches = make_cifar(str(tmp_path), "cifar-100-python", ("train", "test"), "fine_labels",
                         ("meta", "fine_label_names"))
    ds = D.CIFAR100(str(tmp_path))
    assert ds.targets == batches["train"]["fine_labels"]


class _Exploit:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def test_cifar_refuses_pickles_that_would_run_code(tmp_path):
    make_cifar(str(tmp_path))
    with open(tmp_path / "cifar-10-batches-py" / "data_batch_3", "wb") as f:
        pickle.dump({"data": _Exploit(), "labels": []}, f)
    with pytest.raises(pickle.UnpicklingError, match="refusing to load (posix|os|nt).system"):
        D.CIFAR10(str(tmp_path))


# ====================================================================== folders

def make_tree(root):
    Image = pytest.importorskip("PIL.Image")
    for cls in ["dog", "cat", "zebra"]:
        os.makedirs(os.path.join(root, cls, "nested"))
        for k in range(2):
            Image.fromarray(RNG.integers(0, 256, (5, 6, 3), dtype=np.uint8)).save(os.path.join(root, cls, f"{k}.png"))
        Image.fromarray(RNG.integers(0, 256, (5, 6), dtype=np.uint8)).save(os.path.join(root, cls, "nested", "g.PNG"))
        with open(os.path.join(root, cls, "notes.txt"), "w") as f:
            f.write("not an image")


def test_image_folder(tmp_path):
    make_tree(str(tmp_path))
    ds = D.ImageFolder(str(tmp_path), transform=T.ToTensor())
    assert ds.classes == ["cat", "dog", "zebra"] and ds.class_to_idx == {"cat": 0, "dog": 1, "zebra": 2}
    rel = [(os.path.relpath(p, tmp_path), c) for p, c in ds.samples]
    assert rel == [(os.path.join(cls, f), i) for i, cls in enumerate(["cat", "dog", "zebra"])
                   for f in ["0.png", "1.png", os.path.join("nested", "g.PNG")]]
    assert ds.targets == [0, 0, 0, 1, 1, 1, 2, 2, 2] and ds.imgs is ds.samples
    x, y = ds[5]
    assert x.shape == (3, 5, 6) and y == 1                         # greyscale files are loaded as RGB
    only_png = D.ImageFolder(str(tmp_path), is_valid_file=lambda p: p.endswith(".png"))
    assert len(only_png) == 6
    texts = D.DatasetFolder(str(tmp_path), loader=lambda p: open(p).read(), extensions=(".txt",))
    assert texts[2] == ("not an image", 2)


def test_folder_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="Couldn't find any class folder in"):
        D.ImageFolder(str(tmp_path))
    os.makedirs(tmp_path / "empty_class")
    with pytest.raises(FileNotFoundError, match="Found no valid file for the classes empty_class. Supported "):
        D.ImageFolder(str(tmp_path))
    assert len(D.ImageFolder(str(tmp_path), allow_empty=True)) == 0


# ====================================================================== offline datasets

def test_digits_from_scikit_learn():
    sklearn_datasets = pytest.importorskip("sklearn.datasets")
    bunch = sklearn_datasets.load_digits()
    train, test, everything = D.Digits(), D.Digits(train=False), D.Digits(train=None)
    assert len(train) + len(test) == len(everything) == 1797
    x, y = test[4]
    assert x.shape == (1, 8, 8) and x.dtype == pt.float32 and y == int(bunch.target[len(train) + 4])
    np.testing.assert_allclose(x.numpy()[0], bunch.images[len(train) + 4] / 16, rtol=1e-6)
    batch = next(iter(DataLoader(D.Digits(transform=T.Normalize((0.5,), (0.5,))), batch_size=8)))
    assert batch[0].shape == (8, 1, 8, 8)


@pytest.mark.parametrize("cls", [D.Moons, D.Circles, D.Spirals])
def test_point_datasets(cls):
    ds = cls(n_samples=101, seed=3)
    x, y = ds[0]
    assert x.shape == (2,) and x.dtype == pt.float32 and y.dtype == pt.int64 and y.dim() == 0
    assert len(ds) == 101 and ds.data.shape == (101, 2)
    assert np.array_equal(cls(n_samples=101, seed=3).data.numpy(), ds.data.numpy())
    assert not np.array_equal(cls(n_samples=101, seed=4).data.numpy(), ds.data.numpy())
    counts = np.bincount(ds.targets.numpy())
    assert counts.max() - counts.min() <= 1                        # balanced classes
    xb, yb = next(iter(DataLoader(ds, batch_size=16)))
    assert xb.shape == (16, 2) and yb.shape == (16,)


def test_point_dataset_shapes_without_noise():
    moons = D.Moons(n_samples=200, noise=0.0)
    x, y = moons.data.numpy().astype(np.float64), moons.targets.numpy()
    np.testing.assert_allclose(np.hypot(x[y == 0, 0], x[y == 0, 1]), 1.0, atol=1e-6)          # upper moon
    np.testing.assert_allclose(np.hypot(x[y == 1, 0] - 1, x[y == 1, 1] - 0.5), 1.0, atol=1e-6)  # lower moon
    circles = D.Circles(n_samples=200, noise=0.0, factor=0.3)
    x, y = circles.data.numpy().astype(np.float64), circles.targets.numpy()
    np.testing.assert_allclose(np.hypot(*x[y == 1].T), 0.3, atol=1e-6)
    assert D.Spirals(n_samples=90, n_classes=3, noise=0.0).targets.unique().tolist() == [0, 1, 2]
    pt.manual_seed(0)
    a = D.Moons(n_samples=20, seed=None).data
    pt.manual_seed(0)
    assert np.array_equal(D.Moons(n_samples=20, seed=None).data.numpy(), a.numpy())
    with pytest.raises(ValueError, match="'factor' has to be between 0 and 1."):
        D.Circles(factor=1.5)


# ====================================================================== models

def torch_resnet(torch, layers, num_classes):
    """torchvision's ResNet (BasicBlock), written with torch.nn: the reference layout."""
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self, inp, planes, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(inp, planes, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = None
            if stride != 1 or inp != planes:
                self.downsample = nn.Sequential(nn.Conv2d(inp, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))

        def forward(self, x):
            out = self.bn2(self.conv2(self.relu(self.bn1(self.conv1(x)))))
            return self.relu(out + (x if self.downsample is None else self.downsample(x)))

    class ResNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            inp = 64
            for i, (planes, n) in enumerate(zip([64, 128, 256, 512], layers)):
                blocks = [Block(inp, planes, 1 if i == 0 else 2)] + [Block(planes, planes, 1) for _ in range(n - 1)]
                setattr(self, f"layer{i + 1}", nn.Sequential(*blocks))
                inp = planes
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(512, num_classes)
            for m in self.modules():        # torchvision's initialisation
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(torch.flatten(self.avgpool(x), 1))
    return ResNet()


def torch_vgg11(torch, batch_norm, num_classes):
    """torchvision's VGG-11 (configuration "A"), built on the meta device (no initialisation) and then given
    random values: only the layout and the forward matter here."""
    nn = torch.nn
    with torch.device("meta"):
        layers, inp = [], 3
        for v in [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]:
            if v == "M":
                layers.append(nn.MaxPool2d(2, 2))
            else:
                layers += [nn.Conv2d(inp, v, 3, padding=1)] + ([nn.BatchNorm2d(v)] if batch_norm else []) + \
                    [nn.ReLU(inplace=True)]
                inp = v
        model = nn.Module()
        model.features = nn.Sequential(*layers)
        model.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        model.classifier = nn.Sequential(nn.Linear(512 * 7 * 7, 4096), nn.ReLU(True), nn.Dropout(0.5),
                                         nn.Linear(4096, 4096), nn.ReLU(True), nn.Dropout(0.5),
                                         nn.Linear(4096, num_classes))
    model = model.to_empty(device="cpu")
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, t in model.state_dict().items():
            if name.endswith("running_var"):
                t.uniform_(0.5, 1.5, generator=gen)
            elif not name.endswith("num_batches_tracked"):
                t.normal_(0, 0.05 if "classifier" not in name else 0.005, generator=gen)
    model.forward = lambda x: model.classifier(torch.flatten(model.avgpool(model.features(x)), 1))
    return model


def to_pedatorch(state_dict):
    """torch tensors -> pedatorch tensors over the same memory (load_state_dict copies them)."""
    return {k: pt.from_numpy(v.detach().numpy()) for k, v in state_dict.items()}


def check_same_model(torch, ref, ours, x):
    ours_sd = ours.state_dict()
    assert list(ours_sd) == list(ref.state_dict())
    assert all(tuple(ours_sd[k].shape) == tuple(v.shape) for k, v in ref.state_dict().items())
    ours.load_state_dict(to_pedatorch(ref.state_dict()), strict=True)
    ref.eval()
    ours.eval()
    with torch.no_grad():
        expected = ref(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(ours(pt.from_numpy(x)).detach().numpy(), expected, atol=1e-4)


def test_resnet18_layout_init_and_forward_equal_torchvisions():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    ref = torch_resnet(torch, [2, 2, 2, 2], 10)
    pt.manual_seed(0)
    ours = M.resnet18(num_classes=10)
    for k, v in ref.state_dict().items():              # the same draws, in the same order
        np.testing.assert_array_equal(ours.state_dict()[k].numpy(), v.numpy(), err_msg=k)
    # running statistics that are not the defaults, so that eval-mode batch norm is really checked
    with torch.no_grad():
        for m in ref.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
    check_same_model(torch, ref, ours, RNG.standard_normal((2, 3, 32, 32)).astype(np.float32))


def test_resnet34_forward_and_zero_init_residual():
    torch = pytest.importorskip("torch")
    check_same_model(torch, torch_resnet(torch, [3, 4, 6, 3], 5), M.resnet34(num_classes=5),
                     RNG.standard_normal((1, 3, 32, 32)).astype(np.float32))
    zero = M.resnet18(zero_init_residual=True)
    assert zero.layer3[1].bn2.weight.abs().sum().item() == 0 and zero.layer3[1].bn1.weight.sum().item() > 0
    assert sum(p.numel() for p in M.resnet18().parameters()) == 11689512


@pytest.mark.parametrize("batch_norm", [False, True])
def test_vgg11_layout_and_forward(batch_norm, monkeypatch):
    torch = pytest.importorskip("torch")
    # the 100 M weights of the classifier are replaced by the reference's: skip drawing their defaults first
    monkeypatch.setattr(pt.nn.Linear, "reset_parameters", lambda self: None)
    ours = (M.vgg11_bn if batch_norm else M.vgg11)(num_classes=7, init_weights=False)
    check_same_model(torch, torch_vgg11(torch, batch_norm, 7), ours,
                     RNG.standard_normal((1, 3, 32, 32)).astype(np.float32))


def test_lenet5():
    torch = pytest.importorskip("torch")
    model = M.lenet5()
    assert model(pt.rand(2, 1, 28, 28)).shape == (2, 10)
    assert M.LeNet5(num_classes=4, in_channels=3, padding=0)(pt.rand(1, 3, 32, 32)).shape == (1, 4)
    nn = torch.nn
    ref = nn.Module()
    ref.features = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Conv2d(6, 16, 5),
                                 nn.ReLU(), nn.MaxPool2d(2, 2))
    ref.classifier = nn.Sequential(nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))
    ref.forward = lambda x: ref.classifier(torch.flatten(ref.features(x), 1))
    check_same_model(torch, ref, model, RNG.standard_normal((3, 1, 28, 28)).astype(np.float32))


def test_pretrained_weights_explain_how_to_load_them():
    with pytest.raises(RuntimeError, match=r"resnet18-f37072fd\.pth.*does not download.*load_state_dict"):
        M.resnet18(weights=M.ResNet18_Weights.DEFAULT)
    with pytest.raises(RuntimeError, match="vgg11-8a719046.pth"):
        M.vgg11(weights="IMAGENET1K_V1")
    with pytest.raises(RuntimeError, match="resnet34-b627a593.pth"):
        M.resnet34(pretrained=True)
    with pytest.raises(TypeError, match="Invalid Weight class provided; expected ResNet18_Weights but received "
                                        "VGG11_Weights."):
        M.resnet18(weights=M.VGG11_Weights.DEFAULT)
    preprocess = M.ResNet50_Weights.DEFAULT.transforms()
    assert preprocess(pt.randint(0, 256, (3, 250, 300), dtype=pt.uint8)).shape == (3, 224, 224)
